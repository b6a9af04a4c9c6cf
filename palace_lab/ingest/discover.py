"""Which files an ingest offers the parsers, and which paths cannot be read at all.

Given files are offered as they are; folders are walked (sorted, symbolic links to folders
not followed) for candidate suffixes, leaving out ``tool-results`` folders, subagent
transcripts that their parent session brings in and OpenCode message and part files that their
session brings in. A home folder (or an agent's own folder) is not walked: only the agents'
history files in it are offered (:mod:`palace_lab.ingest.homes`). A path that is missing, a
broken link, a link loop or an unreadable folder becomes a report with its reason instead of an
error.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path

from palace_lab.ingest.report import SourceReport

CANDIDATE_SUFFIXES = {".jsonl", ".json", ".zip", ".md", ".ndjson", ".vscdb"}


def discover(paths: Iterable[Path]) -> list[Path]:
    """Files to offer the parsers: given files as they are, folders walked for candidates."""
    return discover_sources(paths)[0]


def discover_sources(paths: Iterable[Path], merged: list[Path] | None = None
                     ) -> tuple[list[Path], list[SourceReport]]:
    """The files of :func:`discover`, and a report for each path that cannot be read at all
    (missing, a link to nowhere, a link loop, an unreadable folder). The subagent transcripts
    left to their parent session are appended to ``merged``, when given, so a report can say
    how many were merged rather than let them vanish from the file count."""
    files: list[Path] = []
    refused: list[SourceReport] = []
    merged = [] if merged is None else merged
    for root in paths:
        root = Path(root).expanduser()
        problem = _unreachable(root)
        if problem:
            refused.append(SourceReport(printable_path(root), None, skipped={problem[0]: 1},
                                        error=f"{printable_path(root)} {problem[1]}"))
            continue
        if root.is_file():
            files.append(root)
            continue
        files.extend(_folder_files(root, refused, merged))
    return files, refused


def _folder_files(root: Path, refused: list[SourceReport], merged: list[Path]) -> list[Path]:
    from palace_lab.ingest.homes import home_roots, location_files

    places = home_roots(root)
    if places is None:
        return _candidates(root, refused, merged)
    files: list[Path] = []
    for loc, folder in places:
        chosen = location_files(loc, folder)
        files.extend(_candidates(folder, refused, merged) if chosen is None else chosen)
    return files


def _candidates(root: Path, refused: list[SourceReport], merged: list[Path]) -> list[Path]:
    from palace_lab.ingest.claude_code import is_attached_subagent
    from palace_lab.ingest.opencode import is_session_part

    files = []
    for p in _walk(root, refused):
        if (p.suffix.lower() not in CANDIDATE_SUFFIXES or "tool-results" in p.parts
                or quietly(is_session_part, p)):
            continue
        (merged if quietly(is_attached_subagent, p) else files).append(p)
    return files


def _unreachable(path: Path) -> tuple[str, str] | None:
    """(reason, message) when ``path`` cannot be read as a file or folder, else None."""
    try:
        path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            return "broken_link", "is a symbolic link to a path that does not exist"
        return "missing_path", "does not exist"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink_loop", "is a symbolic link loop"
        return "unreadable_path", f"cannot be read ({exc.strerror or exc})"
    return None


def _walk(root: Path, refused: list[SourceReport]) -> list[Path]:
    """Regular files under ``root`` in a stable order; unreadable folders are reported."""
    found: list[Path] = []

    def on_error(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        refused.append(SourceReport(printable_path(where), None, skipped={"unreadable_folder": 1},
                                    error=f"{printable_path(where)} cannot be read ({exc.strerror})"))

    for folder, dirs, names in os.walk(root, onerror=on_error):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder) / name
            if quietly(path.is_file):
                found.append(path)
    return found


def quietly(fn, *args) -> bool:
    try:
        return bool(fn(*args))
    except (OSError, ValueError, RecursionError):
        return False


def printable_path(path: Path) -> str:
    """A path as text that can always be printed and stored: a name that is not valid UTF-8
    keeps its readable part, each undecodable byte becomes U+FFFD (the file is still read)."""
    return os.fsencode(path).decode("utf-8", "replace")
