"""A Claude Code session whose request an IDE wrapped and which holds a secret, distilled.

Used by the tests that show the person's request beside a card (Search lab, reader, MCP
``search``, packs) and that name a tool row by its file or command. The first exchange's request
starts with an ``<ide_opened_file>`` block and carries a GitHub token from the redaction table;
its agent reads ``src/app.py`` and runs ``cd ROOT && pytest -q 2>&1 | tail -5``. A second
exchange keeps the search vocabulary from being in every exchange.
"""

from __future__ import annotations

from pathlib import Path

from conftest import write_jsonl
from redaction_table import SECRET_ROWS

KIND, SECRET, LINE = next(row for row in SECRET_ROWS if row[0] == "github_token")
ROOT = "/home/ada/src/ledger"
ASKED = "why does the nightly ledger sync fail?"
REQUEST = (f"<ide_opened_file>The user opened the file {ROOT}/src/app.py in the IDE. This may or "
           f"may not be related to the current task.</ide_opened_file>{ASKED} "
           + LINE.format(s=SECRET))
# A card stored before a redaction rule existed: its detail still holds a secret.
STALE_SECRET = next(s for k, s, _ in SECRET_ROWS if k == "anthropic_api_key")


def _record(n: int, kind: str, content, parent: int | None) -> dict:
    return {"type": kind, "sessionId": "5e55f1d0-0000-4000-8000-00000000ad00", "cwd": ROOT,
            "uuid": f"00000000-0000-4000-8000-{n:012d}",
            "parentUuid": None if parent is None else f"00000000-0000-4000-8000-{parent:012d}",
            "timestamp": f"2026-10-01T10:00:{n:02d}.000Z",
            "message": {"role": "assistant" if kind == "assistant" else "user",
                        "content": content}}


def _tool(n: int, name: str, tool_input: dict, output: str) -> list[dict]:
    call = [{"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": tool_input}]
    result = [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": output}]
    return [_record(n, "assistant", call, n - 1), _record(n + 1, "user", result, n)]


def session_records() -> list[dict]:
    return [
        _record(1, "user", REQUEST, None),
        *_tool(2, "Read", {"file_path": f"{ROOT}/src/app.py"}, "def sync():\n    return token()"),
        *_tool(4, "Bash", {"command": f"cd {ROOT} && pytest -q 2>&1 | tail -5",
                           "description": "run the tests"}, "1 failed, 11 passed"),
        _record(6, "assistant", [{"type": "text", "text": "The ledger sync fails because the "
                                  "token in src/app.py expired; I renewed it."}], 5),
        _record(7, "user", "rename the column amount to total in the invoices table", 6),
        _record(8, "assistant", [{"type": "text", "text": "Renamed amount to total."}], 7),
    ]


def person_palace(folder: Path) -> Path:
    """The session ingested and distilled by rules into ``folder/palace.db``; the first card's
    detail then made stale with :data:`STALE_SECRET`, as a card from before a rule would be."""
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    db = folder / "palace.db"
    source = write_jsonl(folder / "projects" / "-home-ada-src-ledger" / "s.jsonl",
                         session_records())
    with Palace.open(db) as palace:
        ingest_paths(palace, [source])
        distill_palace(palace, get_distiller("rules"))
        first = palace.exchanges()[0].exchange_id
        with palace.transaction() as tx:
            tx.execute("UPDATE cards SET specific_context = ? WHERE exchange_id = ?",
                       (f"export ANTHROPIC_API_KEY={STALE_SECRET}", first))
    return db


def first_exchange(db: Path):
    from palace_lab.store import Palace

    with Palace.open(db, create=False) as palace:
        return palace.exchanges()[0]
