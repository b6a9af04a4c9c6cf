"""A small distilled palace for the agent tests (MCP server, hook), built once per session."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data"
_BUILT: dict[str, Path] = {}


def sample_palace(tmp_path_factory) -> Path:
    """The sample Claude Code and Codex sessions, ingested and distilled with rules (166
    exchanges in three projects). Built once per test session; tests only read it."""
    if "db" not in _BUILT:
        from palace_lab.distill import get_distiller
        from palace_lab.distill.pipeline import distill_palace
        from palace_lab.ingest import ingest_paths
        from palace_lab.store import Palace

        db = tmp_path_factory.mktemp("agent_palace") / "palace.db"
        with Palace.open(db) as palace:
            ingest_paths(palace, [SAMPLE / "claude_code", SAMPLE / "codex"])
            distill_palace(palace, get_distiller("rules"))
        _BUILT["db"] = db
    return _BUILT["db"]


def cli_env() -> dict:
    """The environment a child ``palace-lab`` process gets: the test's own (isolated) one."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return env


PYTHON = sys.executable
