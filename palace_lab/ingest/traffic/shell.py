"""Shell commands and patches: which files a command reads or writes.

Shell commands are read conservatively: a file counts as *read* when it is an argument of
cat/head/tail/sed -n/rg/grep/nl/wc/less/bat, as *written* when it is the target of ``sed -i``/
``perl -i``, of an output redirection (not under /tmp or /dev) or of an ``apply_patch`` patch
inside the command. Heredoc bodies are never parsed as commands. Codex's argv form
(``["bash", "-lc", "…"]``) is unwrapped; Claude Code's ``!`` shell mode arrives as
``<bash-input>…</bash-input>``.
"""

from __future__ import annotations

import re
import shlex

from palace_lab.files import _is_file_like, normalise_path
from palace_lab.ingest.traffic.checks import segments

READERS = frozenset("cat head tail less more nl wc bat rg grep".split())
BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_PATCH = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1(.*?)(?:\n\2\b|$)", re.S)
_REDIRECT = re.compile(r"(?<![\d&>])>>?\s*([^\s;&|<>]+)")
_ASSIGNMENT = re.compile(r"[A-Z_][A-Z0-9_]*=\S*")
_SKIP_TARGETS = ("/dev/", "/tmp/", "&")


def shell_command(inp: dict | str) -> str:
    """The command string of a shell call's input."""
    if isinstance(inp, str):
        m = BASH_INPUT.search(inp)
        return m.group(1).strip() if m else inp.strip()
    cmd = inp.get("command", inp.get("cmd", ""))
    if isinstance(cmd, list):
        words = [str(w) for w in cmd]
        if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh") \
                and words[1] in ("-lc", "-c"):
            return words[2].strip()
        return shlex.join(words)
    return str(cmd or "").strip()


def patch_files(text: str) -> list[tuple[str, str]]:
    """``(path, change)`` of each file in an apply_patch text; change is "", new or deleted."""
    out = []
    for change, path, moved in _PATCH.findall(text):
        if moved:
            out.append((moved, "new"))
        else:
            out.append((path, {"Add": "new", "Delete": "deleted"}.get(change, "")))
    return out


def strip_heredocs(command: str) -> str:
    return _HEREDOC.sub(" ", command)


def file_like(arg: str) -> bool:
    path = normalise_path(arg)
    return len(path) >= 3 and not path.endswith("/") and _is_file_like(path)


def _words(part: str) -> list[str]:
    try:
        return shlex.split(part)
    except ValueError:
        return part.split()


def shell_files(command: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(files read, files written) by a shell command; see the module docstring."""
    reads: list[str] = []
    writes = patch_files(command)
    for segment in segments(strip_heredocs(command)):
        for target in _REDIRECT.findall(segment):
            if not target.startswith(_SKIP_TARGETS) and file_like(target):
                writes.append((target, ""))
        for part in segment.split("|"):
            words = [w for w in _words(part) if not _ASSIGNMENT.fullmatch(w)]
            if words and words[0] == "sudo":
                words = words[1:]
            if not words:
                continue
            exe, args = words[0].rsplit("/", 1)[-1], words[1:]
            files = [a for a in args if not a.startswith("-") and file_like(a)]
            if exe in ("sed", "perl") and any(a.startswith(("-i", "-pi")) for a in args):
                writes.extend((f, "") for f in files)
            elif exe in READERS or (exe == "sed" and "-n" in args):
                reads.extend(files)
    return reads, writes
