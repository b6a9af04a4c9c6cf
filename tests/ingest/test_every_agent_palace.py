"""One palace holding a Claude Code, a Codex (../shared/real_exports, else our real-like ones),
a Gemini CLI, an OpenCode, a Cursor and a Copilot history (our fixtures): a search finds an
exchange from each."""

from __future__ import annotations

import json
from pathlib import Path

from palace_lab.cli import main
from palace_lab.store import Palace

FIX = Path(__file__).resolve().parents[1] / "fixtures"
QUERIES = {  # Claude Code's and Codex's come with the transcripts (real_facts)
    "gemini-cli": "DNS resolver cache never expires entries TTL",
    "opencode": "pagination cursor duplicates ties on created_at",
    "cursor": "dark mode toggle localStorage",
    "copilot": "multi-stage Dockerfile slim image",
    "copilot-cli": "rename the dry-run flag to plan",
}


def run(args, capsys):
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_search_finds_each_agent(real_exports, real_facts, tmp_path, capsys):
    db = str(tmp_path / "all.db")
    homes = [str(FIX / a / "home") for a in ("gemini_cli", "opencode", "cursor", "copilot",
                                             "copilot_cli")]
    report = run(["ingest", str(real_exports / "claude_code"), str(real_exports / "codex"),
                  *homes, "--db", db], capsys)
    queries = {**real_facts["agent_queries"], **QUERIES}
    assert set(report["formats"]) == set(queries) and report["totals"]["errors"] == 0
    run(["distill", "--db", db], capsys)
    budget = run(["budget", "--db", db], capsys)
    with Palace.open(db, create=False) as palace:
        formats = dict(palace.conn.execute("SELECT conversation_id, source_format FROM conversations"))
        assert budget["exchanges"] == palace.count("exchanges")
    for fmt, query in queries.items():
        hits = run(["search", "--db", db, query, "--mode", "bm25:verbatim", "--k", "1"], capsys)
        assert formats[hits[0]["conversation_id"]] == fmt, (fmt, hits[0]["preview"])
