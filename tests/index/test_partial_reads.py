"""A change to a large palace re-reads only the rows it changed: an index folder (and the rows
note of a vector layer not built yet) remembers the stored hash each row was made from, so the
next build or pending count reads the texts of new and changed rows only, and comes to what a
whole read gives.

"Large" is forced by lowering the delta and growth thresholds; the embedder is the fake one
(what is counted here is which texts are read, not what they mean).
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from conftest import write_jsonl

from palace_lab.distill.rules import RulesDistiller
from palace_lab.distill.pipeline import distill_palace
from palace_lab.index import bm25_delta, grow
from palace_lab.index.embed import get_embedder, pending_embeddings
from palace_lab.index.layers import layer_sources
from palace_lab.ingest import ingest_paths
from palace_lab.search import SearchEngine
from palace_lab.store import Palace

WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "ne", "pu") for b in ("bar", "den", "fix", "gol")]


def records(start: int, count: int) -> list[dict]:
    rng = random.Random(start)
    rows = []
    for i in range(start, start + count):
        cid = f"c-{i:04d}"
        rows += [{"conversation_id": cid, "role": "user", "content": " ".join(rng.choices(WORDS, k=8)),
                  "timestamp": f"2024-05-01T{i // 60 % 24:02d}:{i % 60:02d}:00Z"},
                 {"conversation_id": cid, "role": "assistant", "content": " ".join(rng.choices(WORDS, k=20))}]
    return rows


def add(palace, tmp_path, start: int, count: int) -> None:
    ingest_paths(palace, [write_jsonl(tmp_path / f"r{start}.jsonl", records(start, count))])
    distill_palace(palace, RulesDistiller())


@pytest.fixture
def large(monkeypatch):
    monkeypatch.setattr(bm25_delta, "DELTA_FROM", 0)
    monkeypatch.setattr(bm25_delta, "COMPACT_AT", 0.5)
    monkeypatch.setattr(grow, "GROW_FROM", 0)


def texts_read(engine, layer: str) -> list[int]:
    return [e["n"] for e in engine.indexes.build_log if e["layer"] == layer and e["step"] == "texts"]


def ranked(engine, mode: str) -> list[list[str]]:
    return [[h.exchange_id for h in engine.search(" ".join(WORDS[i:i + 3]), mode, k=10)]
            for i in range(0, 15, 3)]


def twin(palace, tmp_path):
    """A copy of the palace and its index folders, with what the folders remember of their
    rows' hashes deleted: its next build reads every text, as before rows had sources."""
    target = tmp_path / "twin" / "palace.db"
    target.parent.mkdir()
    palace.conn.execute("VACUUM INTO ?", (str(target),))
    shutil.copytree(f"{palace.path}.indexes", f"{target}.indexes")
    for found in Path(f"{target}.indexes").rglob("sources.json"):
        found.unlink()
    return Palace.open(target, create=False)


@pytest.mark.parametrize("mode", ["bm25:verbatim", "bm25:core+keywords", "hnsw:core"])
def test_a_change_reads_only_new_rows_and_ranks_as_a_whole_read(palace, tmp_path, large, mode):
    mechanism, layer = mode.split(":")
    add(palace, tmp_path, 0, 60)
    SearchEngine(palace, embedder="fake").search("kabar", mode)
    other = twin(palace, tmp_path)
    for p in (palace, other):
        add(p, tmp_path, 60, 4)
    engine, whole = SearchEngine(palace, embedder="fake"), SearchEngine(other, embedder="fake")
    assert ranked(engine, mode) == ranked(whole, mode)
    assert texts_read(engine, layer) == [4] and texts_read(whole, layer) == [64]
    folder = engine.indexes.get(layer, mechanism).folder
    assert json.loads((folder / "sources.json").read_text()) == \
        dict(zip(*layer_sources(palace, layer, engine.indexes.distiller)))


def test_a_redistilled_card_is_read_again(palace, tmp_path, large):
    add(palace, tmp_path, 0, 40)
    SearchEngine(palace, embedder="fake").search("kabar", "bm25:core")
    card = palace.cards(palace.latest_distiller())[5]
    palace.conn.execute("UPDATE cards SET exchange_core = 'zzunique quux', hash = 'changed'"
                        " WHERE exchange_id = ?", (card.exchange_id,))
    palace.conn.commit()
    engine = SearchEngine(palace, embedder="fake")
    hits = engine.search("zzunique", "bm25:core", k=3)
    assert texts_read(engine, "core") == [1]
    assert hits and hits[0].exchange_id == card.exchange_id


def test_pending_of_a_layer_never_built_counts_from_the_rows_note(palace, tmp_path, large):
    add(palace, tmp_path, 0, 30)
    engine = SearchEngine(palace, embedder="fake")
    fake = get_embedder("fake")
    assert engine.indexes.pending("verbatim", "hnsw") == 30
    assert texts_read(engine, "verbatim") == [30]
    add(palace, tmp_path, 30, 3)
    again = SearchEngine(palace, embedder="fake")
    count = again.indexes.pending("verbatim", "hnsw")
    assert texts_read(again, "verbatim") == [3]  # only the new rows read
    _, texts = again.indexes.layer_rows("verbatim")
    assert count == pending_embeddings(palace, fake, texts) == 33


def test_a_small_bm25_layer_is_rebuilt_from_one_read(palace, tmp_path):
    """Below DELTA_FROM rows a BM25 layer is rebuilt whole: its texts are read once, not its
    changed rows first and every row again."""
    add(palace, tmp_path, 0, 20)
    SearchEngine(palace, embedder="fake").search("kabar", "bm25:verbatim")
    add(palace, tmp_path, 20, 2)
    engine = SearchEngine(palace, embedder="fake")
    engine.search("kabar", "bm25:verbatim")
    assert texts_read(engine, "verbatim") == [22]


def test_layers_of_one_source_share_one_read_of_its_hashes(palace, tmp_path, large, monkeypatch):
    """After a change, counting what four card layers and the verbatim layer lack, and the
    BM25 deltas of two card layers, read the card hashes once and the exchange hashes once;
    a re-distilled card is read again (the memo follows the palace's content)."""
    add(palace, tmp_path, 0, 30)
    engine = SearchEngine(palace, embedder="fake")
    for layer in ("core", "all"):
        engine.search("kabar", f"bm25:{layer}")
    add(palace, tmp_path, 30, 3)
    reads = {"card": 0, "exchange": 0}
    for name, source in (("card_hashes", "card"), ("exchange_hashes", "exchange")):
        real = getattr(Palace, name)
        monkeypatch.setattr(Palace, name, lambda self, *a, _r=real, _s=source:
                            reads.__setitem__(_s, reads[_s] + 1) or _r(self, *a))
    indexes = engine.indexes
    counts = {layer: indexes.pending(layer, "hnsw")
              for layer in ("core", "core+files", "core+rooms", "all", "verbatim")}
    for layer in ("core", "all"):
        engine.search("kabar", f"bm25:{layer}")
    assert counts["verbatim"] == 33 and reads == {"card": 1, "exchange": 1}
    assert texts_read(engine, "core")[-1] == 3  # the BM25 delta read the new rows only
    card = palace.cards(palace.latest_distiller())[0]
    palace.conn.execute("UPDATE cards SET exchange_core = 'zzunique', hash = 'changed'"
                        " WHERE exchange_id = ?", (card.exchange_id,))
    palace.conn.commit()
    assert engine.search("zzunique", "bm25:core", k=1)[0].exchange_id == card.exchange_id
    assert reads == {"card": 2, "exchange": 1}


def test_a_bm25_build_does_not_make_the_palace_fingerprints_recomputed(palace, tmp_path,
                                                                       monkeypatch):
    """A BM25 build writes no row to the palace, so the next use of the index set does not
    re-read the fingerprints (a vector build's own embedding writes do)."""
    add(palace, tmp_path, 0, 10)
    engine = SearchEngine(palace, embedder="fake")
    calls = []
    real = Palace.fingerprint
    monkeypatch.setattr(Palace, "fingerprint", lambda self: calls.append(1) or real(self))
    engine.search("kabar", "bm25:verbatim")
    engine.search("kabar", "bm25:core")
    assert calls == []
    engine.search("kabar", "hnsw:core")
    engine.search("kabar", "hnsw:core")
    assert len(calls) == 1
