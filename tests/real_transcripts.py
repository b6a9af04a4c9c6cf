"""Real coding-agent transcripts for the tests: ``../shared/real_exports`` when the checkout sits
beside it, else ``tests/fixtures/real_like`` (ours, written by its ``build.py`` in the same
formats with the same traps). The facts a test pins (counts, requests, a query and the exchange
it finds) are stated here for each set, by hand, so a test holds on whichever set is present."""

from __future__ import annotations

from pathlib import Path

REAL_EXPORTS = Path(__file__).resolve().parents[2] / "shared" / "real_exports"
REAL_LIKE = Path(__file__).resolve().parent / "fixtures" / "real_like"

REAL_FACTS = {
    "name": "../shared/real_exports",
    "exchanges": 14,
    "codex_exchanges": 2,
    "files": {"claude-code": 4, "codex": 1},
    "codex_first_request": "show tools",
    # a query, and the opening of the request of the exchange verbatim BM25 finds first
    "search": ("context compaction threshold 90", "019e1625-789d-76c0-80ab-3724b5ddb799",
               "let's update the defailt context"),
    "eval_query": "compaction threshold env var",
    "agent_queries": {"claude-code": "balanced opinion strengths and weak points of the proposal",
                      "codex": "default context compaction 90 env var"},
    "requests": {  # each conversation's requests, their first 40 characters
        "019e1625-789d-76c0-80ab-3724b5ddb799": ["show tools", "let's update the defailt context compart"],
        "9eda1058-9706-484a-b992-d03f9cfa2546": ["show tools and store response in file",
                                                 "explore more of current repo", "what else?"],
        "12a546d1-83a7-49a6-abba-5400db340b43": ["We've just done a big refactoring (Phase"],
        "29ccd257-68b1-427f-ae5f-6524b7cb6f20": ["Use the Explore task in sub-agents with "],
    },
    "request_counts": {"03eb5929-52b3-4b13-ada3-b93ae35806b8": 7},
}

REAL_LIKE_FACTS = {
    "name": "tests/fixtures/real_like",
    "exchanges": 12,  # Claude Code 4 + 2 + 2, Codex 2, aider 2
    "codex_exchanges": 2,
    "files": {"claude-code": 3, "codex": 1},
    "codex_first_request": "why does the importer skip the first row of files saved by Excel?",
    "search": ("strip the BOM IMPORT_STRICT", "0192a7c4-1f2e-7d3c-9b4a-5e6f7a8b9c04",
               "make the importer strip the BOM"),
    "eval_query": "importer BOM IMPORT_STRICT default",
    "agent_queries": {"claude-code": "balanced opinion strengths and weak points of the proposal",
                      "codex": "importer skips first row Excel byte order mark"},
    "requests": {
        "7b1e4c2a-5d3f-4e8b-9a61-0c2f3e4d5a01": [
            "The nightly reconcile job fails with a c", "also add a regression test for the pool ",
            "Should the pool size come from an enviro", "Now run the whole suite and tell me if a"],
        "3c9d8e7f-6a5b-4c3d-8e2f-1a0b9c8d7e02": ["Use the Explore task in a sub-agent to m",
                                                 "Write a CLAUDE.md for this repository: h"],
        "0192a7c4-1f2e-7d3c-9b4a-5e6f7a8b9c04": ["why does the importer skip the first row",
                                                 "make the importer strip the BOM and add "],
    },
    "request_counts": {"a4f0e1d2-c3b4-4a59-8687-9a0b1c2d3e03": 2},
}


def transcripts() -> tuple[Path, dict]:
    """(folder, its facts): the real exports when present, else ours."""
    if REAL_EXPORTS.is_dir():
        return REAL_EXPORTS, REAL_FACTS
    return REAL_LIKE, REAL_LIKE_FACTS
