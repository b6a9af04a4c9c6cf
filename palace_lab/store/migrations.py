"""Schema of the palace file, as numbered migrations applied in order inside one exclusive
transaction.

``PRAGMA user_version`` records how many migrations a file has seen; a file newer than this
code is refused rather than guessed at.
"""

from __future__ import annotations

import sqlite3

M001_CREATE_TABLES = """
CREATE TABLE sources (
    path TEXT PRIMARY KEY, format TEXT NOT NULL, size INTEGER, sha1 TEXT NOT NULL,
    ingested_at TEXT NOT NULL, conversations INTEGER, messages INTEGER, skipped_json TEXT
);
CREATE TABLE conversations (
    conversation_id TEXT PRIMARY KEY, source_format TEXT NOT NULL, project TEXT, title TEXT,
    source_path TEXT, parent_id TEXT, started_at TEXT, hash TEXT NOT NULL
);
CREATE TABLE messages (
    conversation_id TEXT NOT NULL REFERENCES conversations(conversation_id) ON DELETE CASCADE,
    position INTEGER NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL, source_key TEXT NOT NULL,
    is_request INTEGER NOT NULL, searchable INTEGER NOT NULL, tool_name TEXT, timestamp TEXT,
    source_path TEXT, source_line INTEGER, meta_json TEXT, hash TEXT NOT NULL,
    PRIMARY KEY (conversation_id, position)
);
CREATE TABLE exchanges (
    exchange_id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(conversation_id) ON DELETE CASCADE,
    ply_start INTEGER NOT NULL, ply_end INTEGER NOT NULL, request TEXT NOT NULL,
    verbatim TEXT NOT NULL, dialogue TEXT NOT NULL, files_json TEXT NOT NULL, project TEXT,
    timestamp TEXT, hash TEXT NOT NULL
);
CREATE INDEX exchanges_by_conversation ON exchanges(conversation_id, ply_start);
CREATE TABLE distillers (
    version TEXT PRIMARY KEY, backend TEXT NOT NULL, config_json TEXT, created_at TEXT NOT NULL
);
CREATE TABLE cards (
    exchange_id TEXT NOT NULL, distiller TEXT NOT NULL REFERENCES distillers(version),
    exchange_hash TEXT NOT NULL, exchange_core TEXT NOT NULL, specific_context TEXT NOT NULL,
    rooms_json TEXT NOT NULL, files_json TEXT NOT NULL, fallback INTEGER NOT NULL DEFAULT 0,
    error TEXT, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0,
    cost_usd REAL DEFAULT 0, created_at TEXT NOT NULL, hash TEXT NOT NULL,
    PRIMARY KEY (exchange_id, distiller)
);
CREATE TABLE embeddings (
    content_hash TEXT NOT NULL, model TEXT NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (content_hash, model)
);
CREATE TABLE queries (
    query_id TEXT PRIMARY KEY, query_set TEXT NOT NULL, text TEXT NOT NULL, type TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE judgments (
    query_id TEXT NOT NULL, exchange_id TEXT NOT NULL, grade INTEGER NOT NULL,
    judge TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (query_id, exchange_id, judge)
);
CREATE TABLE runs (
    run_id TEXT PRIMARY KEY, mode TEXT NOT NULL, query_set TEXT, created_at TEXT NOT NULL,
    run_json TEXT NOT NULL
);
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

M002_ARCHIVE_EVENTS = """
CREATE TABLE archive_events (
    at TEXT NOT NULL, conversation_id TEXT NOT NULL, source_path TEXT, event TEXT NOT NULL,
    stored_messages INTEGER, offered_messages INTEGER
);
"""

# The card's fifth field (keywords, a JSON list); cards made before it have none.
M003_CARD_KEYWORDS = "ALTER TABLE cards ADD COLUMN keywords_json TEXT NOT NULL DEFAULT '[]'"

# What keys every derived index and incremental read (ids and hashes, in conversation order)
# without reading the rows: an exchange's hash is stored after its texts, so reading it from
# the table walks every page of the verbatim text (the whole palace, at 50,000 exchanges).
M004_HASH_INDEXES = """
CREATE INDEX exchanges_in_order ON exchanges(conversation_id, ply_start, exchange_id, hash);
CREATE INDEX cards_by_version ON cards(distiller, exchange_id, hash);
"""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("m001_create_tables", M001_CREATE_TABLES),
    ("m002_archive_events", M002_ARCHIVE_EVENTS),
    ("m003_card_keywords", M003_CARD_KEYWORDS),
    ("m004_hash_indexes", M004_HASH_INDEXES),
)


def schema_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the migrations this file has not seen; returns the schema version reached.

    Several processes may open a new palace at once: the pending migrations run in one
    exclusive transaction and the version is read again once it is held, so each migration
    runs exactly once and no process sees a half-made schema.
    """
    from palace_lab.errors import StoreError

    current = schema_version(conn)
    if current > len(MIGRATIONS):
        raise StoreError(
            f"palace schema version {current} is newer than this palace_lab "
            f"({len(MIGRATIONS)}); upgrade palace_lab to open it"
        )
    if current == len(MIGRATIONS):
        return current
    conn.execute("BEGIN EXCLUSIVE")
    try:
        for number, (_name, sql) in enumerate(MIGRATIONS, start=1):
            if number > schema_version(conn):  # another process may have got here first
                for statement in _statements(sql):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return len(MIGRATIONS)


def _statements(script: str) -> list[str]:
    """The statements of a migration script (``executescript`` would commit first)."""
    out, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    if pending.strip():
        out.append(pending.strip())
    return out
