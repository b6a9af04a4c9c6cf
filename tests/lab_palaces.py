"""Small palaces for the lab's tests: six exchanges on distinct topics, with cards, queries and
judgments whose expected rankings are easy to see by eye."""

from __future__ import annotations

import json
from pathlib import Path

TOPICS = [
    ("pool", "The API times out under load, look at the connection pool in src/db/pool.py",
     "Raised pool_size=20 and pool_timeout=10 in src/db/pool.py; the QueuePool timeout is gone."),
    ("rounding", "currency conversion gives 10.005 instead of 10.00 for EUR, fix the rounding",
     "Switched convert() in src/fx.py to Decimal quantize with ROUND_HALF_EVEN."),
    ("ci", "the GitHub Actions workflow fails on the lint step, fix .github/workflows/ci.yml",
     "Pinned ruff to 0.6.9 in .github/workflows/ci.yml; the lint job passes again."),
    ("cache", "add a redis cache in front of the pricing endpoint src/api/prices.py",
     "Added a redis cache with ttl=300 seconds to get_prices in src/api/prices.py."),
    ("flaky", "test_transfers is flaky on CI, sometimes KeyError: 'user_id'",
     "The fixture shared state between tests; made the user fixture function-scoped in tests/conftest.py."),
    ("docs", "write the README section on installing with pipx",
     "Wrote the Installing section of README.md: pipx install palace-lab, then palace-lab --help."),
]
QUERIES = [
    {"query_id": "q1", "query": "connection pool timeout", "type": "conceptual"},
    {"query_id": "q2", "query": "ROUND_HALF_EVEN", "type": "exact_term"},
    {"query_id": "q3", "query": ".github/workflows/ci.yml", "type": "file_path"},
    {"query_id": "q4", "query": "KeyError: 'user_id'", "type": "error"},
]
RELEVANT = {"q1": "pool", "q2": "rounding", "q3": "ci", "q4": "flaky"}


def write_history(folder: Path, extra: list[dict] | None = None) -> Path:
    """The six topics as palace JSONL, one conversation each (plus ``extra`` lines)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, (name, request, answer) in enumerate(TOPICS):
        ts = f"2025-0{1 + i % 6}-1{i}T10:00:00Z"
        lines += [{"conversation_id": f"c-{name}", "role": "user", "content": request,
                   "timestamp": ts, "project": "demo" if i % 2 else "other"},
                  {"conversation_id": f"c-{name}", "role": "assistant", "content": answer}]
    lines += extra or []
    path = folder / "history.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    return path


def build(db: Path, *, distill: bool = True, judged: bool = True, extra: list[dict] | None = None):
    """An open palace at ``db``: ingested, distilled by rules, queries and qrels stored."""
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    palace = Palace.open(db)
    ingest_paths(palace, [write_history(db.parent / "history", extra)])
    if distill:
        distill_palace(palace, get_distiller("rules"))
    if judged:
        ids = exchange_ids(palace)
        palace.put_queries("sample", QUERIES)
        palace.put_judgments("qrels:sample", {q: {ids[t]: 3} for q, t in RELEVANT.items()})
    return palace


def exchange_ids(palace) -> dict[str, str]:
    """``{topic: exchange_id}``."""
    return {e.conversation_id.removeprefix("c-"): e.exchange_id for e in palace.exchanges()}
