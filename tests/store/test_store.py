"""The palace file: migrations, atomic writes, content hashes, verify."""

from __future__ import annotations

import sqlite3

import pytest

from palace_lab.errors import StoreError
from palace_lab.model import Conversation, Message
from palace_lab.ingest.segment import segment
from palace_lab.store import Palace
from palace_lab.store.migrations import MIGRATIONS


def conv(texts, cid="c1"):
    msgs = tuple(Message(cid, i, role, text, f"k{i}", is_request=role == "user")
                 for i, (role, text) in enumerate(texts))
    return Conversation(cid, "palace-jsonl", msgs, project="p")


def store(palace, c):
    with palace.transaction() as tx:
        return palace.store_conversation(tx, c, segment(c))


def test_schema_version_and_wal(palace):
    assert palace.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert palace.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "future.db"
    sqlite3.connect(path).execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(StoreError, match="newer than this palace_lab"):
        Palace.open(path)


def test_not_a_palace_file(tmp_path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a palace file"):
        Palace.open(path)


def test_same_conversation_twice_is_a_noop(palace):
    c = conv([("user", "hi"), ("assistant", "hello")])
    assert store(palace, c) == (2, 1)
    assert store(palace, c) == (0, 0)


def test_grown_conversation_adds_only_what_is_new(palace):
    store(palace, conv([("user", "hi"), ("assistant", "hello")]))
    added = store(palace, conv([("user", "hi"), ("assistant", "hello"), ("user", "more"), ("assistant", "ok")]))
    assert added == (2, 1)
    assert [e.ply_start for e in palace.exchanges()] == [0, 2]


def test_transaction_rolls_back_on_error(palace):
    with pytest.raises(RuntimeError):
        with palace.transaction() as tx:
            palace.store_conversation(tx, conv([("user", "x")]), segment(conv([("user", "x")])))
            raise RuntimeError("boom")
    assert palace.count("messages") == 0 and palace.count("conversations") == 0


def test_verify_finds_a_tampered_row(palace):
    store(palace, conv([("user", "the pool timeout"), ("assistant", "fixed")]))
    assert palace.verify().ok
    palace.conn.execute("UPDATE messages SET text='edited' WHERE position=0")
    palace.conn.execute("UPDATE exchanges SET verbatim='edited'")
    report = palace.verify()
    assert not report.ok
    assert report.mismatches == ["message c1#0", f"exchange {palace.exchanges()[0].exchange_id}"]


def test_kv_roundtrip(palace):
    palace.kv_set("a", "1")
    assert palace.kv_get("a") == "1"
    palace.kv_set("a", None)
    assert palace.kv_get("a") is None


def test_missing_palace_without_create(tmp_path):
    with pytest.raises(StoreError, match="no palace at"):
        Palace.open(tmp_path / "nope.db", create=False)


def test_count_refuses_unknown_tables(palace):
    with pytest.raises(ValueError):
        palace.count("sqlite_master; drop table x")


def test_default_distiller_is_the_most_complete_version(palace):
    from palace_lab.distill.base import DistillOutcome
    from palace_lab.model import DistilledCard, Room

    for i in range(3):
        store(palace, conv([("user", f"request {i}"), ("assistant", "done")], cid=f"c{i}"))
    exchanges = palace.exchanges()

    def cards(version, subset):
        palace.register_distiller(version, "rules")
        outcomes = [DistillOutcome(DistilledCard(e.exchange_id, version, "core", "ctx",
                                                 (Room("workflow", "feature", "Feature", 0.5),), ()))
                    for e in subset]
        palace.put_cards(outcomes, {e.exchange_id: e.hash for e in subset})

    cards("full", exchanges)
    cards("trial", exchanges[:1])  # newer, but partial
    assert palace.latest_distiller() == "full"


def test_a_palace_of_an_older_schema_is_migrated_once(tmp_path):
    from palace_lab.store.migrations import M001_CREATE_TABLES, _statements

    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    for statement in _statements(M001_CREATE_TABLES):
        con.execute(statement)
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    with Palace.open(path) as palace:
        assert palace.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert palace.archive_events() == []
    with Palace.open(path) as palace:  # a second open finds nothing to do
        assert palace.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_a_new_palace_on_a_file_system_without_hard_links(tmp_path, monkeypatch):
    import os

    def no_links(*_):
        raise PermissionError("hard links not supported")

    monkeypatch.setattr(os, "link", no_links)
    with Palace.open(tmp_path / "new.db") as palace:
        assert palace.count("exchanges") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.db"]


def test_ids_and_hashes_are_read_from_covering_indexes(palace):
    """The hashes every fingerprint and incremental read needs come from indexes, never from
    the exchange rows (whose hash is stored after the verbatim text: reading it walks every
    page of that text)."""
    from tiny_palace import fill

    from palace_lab.distill.rules import RulesDistiller
    from palace_lab.distill.pipeline import distill_palace

    fill(palace, 3)
    distill_palace(palace, RulesDistiller())
    version = palace.latest_distiller()
    traced = []
    palace.conn.set_trace_callback(traced.append)
    order = palace.exchange_hashes()
    assert [c[0] for c in palace.card_hashes(version)] == list(order)
    palace.fingerprint()
    palace.conn.set_trace_callback(None)
    traced = [sql for sql in traced if not sql.startswith("PRAGMA")]  # the state check
    assert len(traced) == 3
    for sql in traced:
        plan = [r[3] for r in palace.conn.execute("EXPLAIN QUERY PLAN " + sql,
                                                  (version,) if "?" in sql else ())]
        reads = [step for step in plan if step.split()[1] in ("exchanges", "e")]
        assert reads and all("COVERING INDEX" in step for step in reads), (sql, plan)
        assert "cards" not in sql or any("COVERING INDEX cards_by_version" in p for p in plan)


def test_reads_by_key_go_in_chunks_and_keep_every_row(palace, monkeypatch):
    """``IN (...)`` lists are cut at IN_CHUNK keys (SQLite's variable cap): with chunks of 2,
    exchanges, embeddings and titles of 5 keys (some unknown, one repeated) are all found."""
    import numpy as np

    from palace_lab.store import opening
    from palace_lab.store.contents import titles

    store(palace, conv([("user", f"question {i}") if i % 2 == 0 else ("assistant", f"answer {i}")
                        for i in range(6)]))
    store(palace, conv([("user", "q"), ("assistant", "a")], cid="c2"))
    monkeypatch.setattr(opening, "IN_CHUNK", 2)
    ids = [e.exchange_id for e in palace.exchanges()]
    found = palace.exchanges_by_id([*ids, "nope", ids[0]])
    assert sorted(found) == sorted(ids) and len(ids) == 4
    palace.put_embeddings("m", {f"h{i}": np.full(3, i, dtype=np.float32) for i in range(5)})
    keys = [f"h{i}" for i in range(5)] + ["h9"]
    assert sorted(palace.get_embeddings(keys, "m")) == keys[:5]
    assert palace.embedded(keys, "m") == set(keys[:5])
    assert set(titles(palace, ["c1", "c2", "c1", "c3"])) == {"c1", "c2"}


def test_card_rooms_are_the_cards_rooms_in_card_order(palace, real_exports):
    """The Rooms page counts rooms from this light read (1.9 s against 5.6 s for the cards at
    50,000): the same rooms, in the same order, so ties of labels break the same way."""
    from palace_lab.distill.rules import RulesDistiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.ingest import ingest_paths
    from palace_lab.rooms import room_stats

    ingest_paths(palace, [real_exports])
    version = distill_palace(palace, RulesDistiller()).distiller
    cards, filed = palace.cards(version), palace.card_rooms(version)
    assert [(c.exchange_id, c.room_assignments) for c in cards] == \
        [(f.exchange_id, f.room_assignments) for f in filed] and cards
    assert room_stats(filed) == room_stats(cards)


def test_fingerprints_are_read_once_per_state_of_the_file(palace, tmp_path):
    """``fingerprint`` and the cards' fingerprint are kept until the file changes: by this
    connection (a write) or by another one (a commit there), and then read again."""
    from tiny_palace import fill

    from palace_lab.distill.rules import RulesDistiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.index.cache import cards_fingerprint

    fill(palace, 3)
    distill_palace(palace, RulesDistiller())
    version = palace.latest_distiller()
    first, cards = palace.fingerprint(), cards_fingerprint(palace, version)
    traced = []
    palace.conn.set_trace_callback(traced.append)
    assert (palace.fingerprint(), cards_fingerprint(palace, version)) == (first, cards)
    assert all(sql.startswith("PRAGMA") for sql in traced)
    with palace.transaction() as tx:  # this connection
        tx.execute("UPDATE cards SET hash = 'changed' WHERE rowid = (SELECT MIN(rowid) FROM cards)")
    assert palace.fingerprint() == first and cards_fingerprint(palace, version) != cards
    other = Palace.open(palace.path, create=False)  # another connection
    with other.transaction() as tx:
        tx.execute("UPDATE exchanges SET hash = 'changed' WHERE rowid = (SELECT MIN(rowid) FROM exchanges)")
    other.close()
    assert palace.fingerprint() != first
