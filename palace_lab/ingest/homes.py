"""Where each agent keeps its history inside a home folder, and which of its files to read.

A location is an agent's folder relative to a home (``.gemini/tmp``) and the globs, relative to
that folder, that select its history files (empty: walk the folder with the usual rules). Given
a home folder, ``palace-lab ingest ~`` reads every location that exists there and nothing else
of the home; given a location's own folder (``~/.config/Cursor/User``), its globs apply too, so
an editor's settings, file history and extension caches are never offered to the parsers.
macOS and Windows places are listed beside the Linux ones: a copied home is read the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class AgentLocation:
    """One agent's history folder under a home, and the globs that select its files."""

    agent: str
    label: str
    base: str
    patterns: tuple[str, ...] = ()
    in_home: bool = True  # False: only when its folder is given itself (another covers it)


_CURSOR = ("globalStorage/state.vscdb", "workspaceStorage/*/state.vscdb")
_VSCODE = ("workspaceStorage/*/chatSessions/*.json", "workspaceStorage/*/chatSessions/*.jsonl",
           "workspaceStorage/*/state.vscdb",
           "globalStorage/emptyWindowChatSessions/*.json",
           "globalStorage/emptyWindowChatSessions/*.jsonl")
_GEMINI = ("*/chats/*.json", "*/chats/*.jsonl", "*/chats/*/*.jsonl", "*/logs.json",
           "*/checkpoint-*.json")

LOCATIONS: tuple[AgentLocation, ...] = (
    AgentLocation("claude-code", "Claude Code", ".claude/projects"),
    AgentLocation("codex", "Codex CLI", ".codex/sessions"),
    AgentLocation("codex", "Codex CLI (archived)", ".codex/archived_sessions"),
    AgentLocation("gemini-cli", "Gemini CLI", ".gemini/tmp", _GEMINI),
    AgentLocation("opencode", "OpenCode", ".local/share/opencode",
                  ("storage/session/*/*.json", "opencode.db")),
    AgentLocation("opencode", "OpenCode", ".local/share/opencode/storage", ("session/*/*.json",),
                  in_home=False),
    AgentLocation("cursor", "Cursor", ".config/Cursor/User", _CURSOR),
    AgentLocation("cursor", "Cursor", "Library/Application Support/Cursor/User", _CURSOR),
    AgentLocation("cursor", "Cursor", "AppData/Roaming/Cursor/User", _CURSOR),
    AgentLocation("copilot", "Copilot in VS Code", ".config/Code/User", _VSCODE),
    AgentLocation("copilot", "Copilot in VS Code Insiders", ".config/Code - Insiders/User",
                  _VSCODE),
    AgentLocation("copilot", "Copilot in VS Code", "Library/Application Support/Code/User",
                  _VSCODE),
    AgentLocation("copilot", "Copilot in VS Code", "AppData/Roaming/Code/User", _VSCODE),
    AgentLocation("copilot-cli", "Copilot CLI", ".copilot/session-state",
                  ("*/events.jsonl", "*.jsonl")),
    AgentLocation("copilot-cli", "Copilot CLI (history)", ".copilot/history-session-state",
                  ("*.json",)),
)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def locations_in(home: Path) -> list[tuple[AgentLocation, Path]]:
    """The locations that exist under ``home``, in the order of :data:`LOCATIONS`."""
    return [(loc, home / loc.base) for loc in LOCATIONS
            if loc.in_home and _is_dir(home / loc.base)]


def location_of(folder: Path) -> AgentLocation | None:
    """The location whose folder ``folder`` is (its path ends with the location's base)."""
    parts = folder.expanduser().parts
    for loc in sorted(LOCATIONS, key=lambda loc: -len(loc.base)):  # the deepest base first
        base = PurePosixPath(loc.base).parts
        if loc.patterns and tuple(parts[-len(base):]) == base:
            return loc
    return None


def location_files(loc: AgentLocation, folder: Path) -> list[Path] | None:
    """The history files of one location, sorted; None when the folder is to be walked."""
    if not loc.patterns:
        return None
    found: set[Path] = set()
    for pattern in loc.patterns:
        try:
            found.update(p for p in folder.glob(pattern) if p.is_file())
        except OSError:
            continue
    return sorted(found)


def home_roots(root: Path) -> list[tuple[AgentLocation, Path]] | None:
    """What to read for a folder given to ingest: its agent locations when it is a home or a
    location's own folder, else None (the folder is walked as it is)."""
    own = location_of(root)
    if own is not None:
        return [(own, root)]
    found = locations_in(root)
    return found or None


def selected(path: Path) -> bool | None:
    """Whether a file under an agent location is one of its history files (by the location's
    globs); None when the path lies under no location that has globs."""
    parts = path.parts
    for loc in sorted(LOCATIONS, key=lambda loc: -len(loc.base)):
        base = PurePosixPath(loc.base).parts
        if not loc.patterns:
            continue
        for i in range(len(parts) - len(base)):
            if parts[i:i + len(base)] == base:
                rel = PurePosixPath(*parts[i + len(base):])
                return any(len(rel.parts) == len(PurePosixPath(p).parts) and rel.match(p)
                           for p in loc.patterns)
    return None


def watch_folders(roots: list[Path]) -> list[Path]:
    """The folders to follow for ``roots``: a home becomes its agents' folders (following a
    whole home would watch every file in it)."""
    out: list[Path] = []
    for root in roots:
        places = home_roots(root) if _is_dir(root) else None
        out.extend([folder for _, folder in places] if places else [root])
    return out


def default_locations(home: Path | None = None) -> list[tuple[str, Path]]:
    """(label, folder) of each agent history that exists in ``home`` (default: the user's)."""
    home = Path.home() if home is None else home
    return [(loc.label, folder) for loc, folder in locations_in(home)]
