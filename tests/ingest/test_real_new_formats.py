"""Real transcripts of the newer agents, when ../shared holds any: each must ingest.

../shared/real_exports and ../shared/real_histories are searched for folders named after an
agent (gemini*, opencode*, cursor*, copilot*); none is there today, so the test says so and
skips. When one arrives it is read from its folder as a home or agent folder would be.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from palace_lab.ingest import ingest_paths

SHARED = Path(__file__).resolve().parents[3] / "shared"
AGENTS = {"gemini": "gemini-cli", "opencode": "opencode", "cursor": "cursor", "copilot": "copilot"}


def real_folders() -> list[tuple[str, Path]]:
    found = []
    for top in ("real_exports", "real_histories"):
        folder = SHARED / top
        for child in sorted(folder.iterdir()) if folder.is_dir() else []:
            agent = next((fmt for key, fmt in AGENTS.items() if child.name.startswith(key)), None)
            if agent and child.is_dir():
                found.append((agent, child))
    return found


@pytest.mark.parametrize("agent,folder", real_folders() or [pytest.param(
    None, None, marks=pytest.mark.skip(reason=f"no Gemini CLI, OpenCode, Cursor or Copilot "
                                              f"transcript under {SHARED}/real_*"))])
def test_a_real_transcript_ingests(agent, folder, palace):
    report = ingest_paths(palace, [folder])
    assert report.totals()["conversations"] > 0
    assert agent.split("-")[0] in " ".join(report.by_format())
