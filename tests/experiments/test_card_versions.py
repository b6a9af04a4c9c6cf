"""Two card versions on a sample: the sample, restricted qrels, the sample search, the table."""

from __future__ import annotations

import lab_palaces
from palace_lab.experiments import card_versions as cv
from palace_lab.distill import get_distiller
from palace_lab.distill.pipeline import distill_palace
from palace_lab.index.embed import FakeEmbedder


def test_sample_takes_relevant_exchanges_first_and_is_seeded(tmp_path):
    palace = lab_palaces.build(tmp_path / "p.db")
    qrels = palace.qrels()
    ids = lab_palaces.exchange_ids(palace)
    sample = cv.choose_sample(palace, qrels, n=4, seed=1)
    relevant = {ids[t] for t in lab_palaces.RELEVANT.values()}
    assert len(sample) == 4 and len(relevant & set(sample)) >= 2
    assert sample == cv.choose_sample(palace, qrels, n=4, seed=1)
    assert cv.restrict(qrels, sample) == {q: d for q, d in qrels.items() if set(d) <= set(sample)}
    order = [e.exchange_id for e in palace.exchanges()]
    assert sample == [e for e in order if e in set(sample)]  # palace order


def test_the_sample_is_chosen_without_reading_any_exchange_text(tmp_path, monkeypatch):
    """At 50,000 exchanges reading them all took 2.2 s of the Tuning page's first render."""
    palace = lab_palaces.build(tmp_path / "p.db")
    before = cv.choose_sample(palace, palace.qrels(), n=6, seed=3)
    monkeypatch.setattr(type(palace), "exchanges", lambda *a, **k: (_ for _ in ()).throw(
        AssertionError("read every exchange")))
    assert cv.choose_sample(palace, palace.qrels(), n=6, seed=3) == before


def test_a_trial_version_is_compared_on_the_same_sample(tmp_path):
    palace = lab_palaces.build(tmp_path / "p.db")
    ids = list(lab_palaces.exchange_ids(palace).values())
    base = get_distiller("rules").version
    trial = get_distiller("rules", context_chars=20)
    summary = distill_palace(palace, trial, exchange_ids=ids[:4])
    assert summary.made == 4 and len(palace.cards(trial.version)) == 4
    pairs = cv.card_pairs(palace, base, trial.version, ids[:4],
                          count_tokens=lambda texts: [len(t.split()) for t in texts])
    assert all(len(p["trial_context"]) <= 20 for p in pairs)
    queries = palace.queries("sample")
    rows, info = cv.compare_versions(palace, [base, trial.version], ids[:4], queries,
                                     palace.qrels(), FakeEmbedder())
    assert info["exchanges"] == 4 and info["queries"] >= 1
    assert {r["version"] for r in rows} == {base, trial.version}
    assert {r["mode"] for r in rows} == set(cv.TRIAL_MODES)
    verbatim = [r["mrr"] for r in rows if r["mode"] == "bm25:verbatim"]
    assert verbatim[0] == verbatim[1]  # the verbatim layer does not depend on the cards


def test_sample_search_ranks_the_obvious_exchange_first(tmp_path):
    palace = lab_palaces.build(tmp_path / "p.db")
    ids = lab_palaces.exchange_ids(palace)
    search = cv.SampleSearch(palace, list(ids.values()), palace.latest_distiller(), FakeEmbedder())
    run = search.run({"q": "ROUND_HALF_EVEN quantize"}, "bm25:verbatim", k=3)
    assert next(iter(run["q"])) == ids["rounding"]
    fused = search.run({"q": "connection pool timeout"}, "rrf(bm25:verbatim,hnsw:core;k=60)", k=2)
    assert next(iter(fused["q"])) == ids["pool"]
