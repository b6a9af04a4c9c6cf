"""Token budgets: real encodings offline, both ratio definitions computed by hand."""

from __future__ import annotations

import math

from palace_lab.budget import (ExchangeBudget, budget_rows, fits_in_window, keep_budget, load_cost,
                               palace_budget, summarize)
from palace_lab.distill.rules import RulesDistiller
from palace_lab.distill.pipeline import distill_palace
from palace_lab.ingest import ingest_paths
from palace_lab.tokens import count_tokens, get_encoding


def test_real_encodings_load_offline():
    assert count_tokens(["hello world"], "cl100k_base") == [2]
    assert count_tokens(["hello world"], "o200k_base") == [2]
    assert get_encoding("cl100k_base").name == "cl100k_base"


def test_special_token_text_is_counted_as_text():
    assert count_tokens(["<|endoftext|>"])[0] > 1


def rows():
    return [ExchangeBudget("a", "p", None, verbatim=400, dialogue=100, core=40, card=60),
            ExchangeBudget("b", "p", None, verbatim=100, dialogue=50, core=20, card=30),
            ExchangeBudget("c", "q", None, verbatim=300, dialogue=90, core=None, card=None)]


def test_both_ratio_definitions_by_hand():
    s = summarize(rows())
    c = s.compression["verbatim_over_core"]
    assert c["ratio_of_totals"] == round((400 + 100) / (40 + 20), 2)  # 8.33
    assert c["mean_of_ratios"] == round((400 / 40 + 100 / 20) / 2, 2)  # 7.5
    assert c["pairs"] == 2
    assert s.layers["verbatim"] == {"total": 800, "mean": 266.7, "median": 300, "exchanges": 3}
    assert s.layers["core"]["exchanges"] == 2
    assert s.per_1000["core"] == 30_000


def test_headline_is_dialogue_over_the_searched_layer_with_verbatim_one_step_away():
    with_keywords = [ExchangeBudget("a", "p", None, verbatim=400, dialogue=100, core=10, card=60,
                                    searched=20),
                     ExchangeBudget("b", "p", None, verbatim=100, dialogue=60, core=5, card=30,
                                    searched=12)]
    h = summarize(with_keywords).headline
    assert (h["numerator"], h["denominator"]) == ("dialogue", "searched")
    assert h["ratio"] == round((100 + 60) / (20 + 12), 2)  # 5.0, not the core's 10.67
    assert h["other"]["ratio"] == round((400 + 100) / (20 + 12), 2)  # 15.62
    assert summarize(rows()).headline["denominator"] == "core"  # cards without keywords
    # over the exchanges with a card only ("c" has none): (100 + 50) / (40 + 20)
    assert summarize(rows()).to_dict()["headline"]["ratio"] == round(150 / 60, 2)


def test_window_and_cost():
    s = summarize(rows())
    assert fits_in_window(s, 200_000)["core"] == 200_000 // 30
    assert load_cost(s, {"m": 2.0})["m"]["verbatim"] == round(800 * 2 / 1e6, 4)


def test_palace_budget_on_real_exports(palace, real_exports, real_facts):
    ingest_paths(palace, [real_exports])
    distill_palace(palace, RulesDistiller())
    summary, per_exchange = palace_budget(palace)
    d = summary.to_dict()
    assert d["tokenizer"] == "cl100k_base" and d["distiller"] == RulesDistiller().version
    assert d["exchanges"] == len(per_exchange) == real_facts["exchanges"]
    assert d["layers"]["core"]["mean"] <= 40
    assert d["compression"]["verbatim_over_core"]["ratio_of_totals"] >= 10
    assert not math.isnan(d["compression"]["verbatim_over_core"]["mean_of_ratios"])


def test_histogram_counts_every_exchange_on_log_bins():
    from palace_lab.charts.budget import token_histogram

    fig = token_histogram(rows())
    counts = {trace.name: int(sum(trace.y)) for trace in fig.data}
    assert counts == {"verbatim": 3, "distilled (core)": 2}
    assert fig.layout.xaxis.type == "log"


def test_counting_in_two_halves_keeps_order_and_counts():
    """Above 256 texts the counts come from two threads' halves: same as one text at a time,
    in the texts' order (odd length: the halves differ by one)."""
    from palace_lab.tokens import count_tokens, get_encoding

    enc = get_encoding()
    texts = [f"exchange {i} " + "word " * (i % 37) + "<|endoftext|>" * (i % 2) for i in range(601)]
    assert count_tokens(texts) == [len(enc.encode_ordinary(t)) for t in texts]
    assert count_tokens(texts[:3]) == [len(enc.encode_ordinary(t)) for t in texts[:3]]


def _counting(monkeypatch) -> list[int]:
    """Record how many texts each token count is asked for (the budget module's counter)."""
    import palace_lab.budget as budget_module

    sizes: list[int] = []
    real = budget_module.count_tokens

    def counted(texts, encoding="cl100k_base"):
        texts = list(texts)
        sizes.append(len(texts))
        return real(texts, encoding)

    monkeypatch.setattr(budget_module, "count_tokens", counted)
    return sizes


def test_distill_keeps_the_figures_and_a_budget_counts_only_what_changed(palace, real_exports,
                                                                          real_facts, monkeypatch):
    """Distilling counts its cards' tokens once; a budget then counts nothing, and after one
    exchange changes, only that exchange and its new card; the figures equal a full recount."""
    from dataclasses import replace

    from palace_lab.store.memo import FILE

    ingest_paths(palace, [real_exports])
    sizes = _counting(monkeypatch)
    made = distill_palace(palace, RulesDistiller(), keep=keep_budget)
    n = real_facts["exchanges"]
    assert made.made == n and sum(sizes) == n * 5  # each exchange's 2 layers, its card's 3
    sizes.clear()
    first, rows = palace_budget(palace)
    assert sizes == []  # every figure read back
    changed = replace(palace.exchanges()[3], verbatim=palace.exchanges()[3].verbatim + " more words here")
    with palace.transaction() as tx:
        tx.execute("UPDATE exchanges SET verbatim=?, hash=? WHERE exchange_id=?",
                   (changed.verbatim, changed.hash, changed.exchange_id))
    distill_palace(palace, RulesDistiller(), keep=keep_budget)
    # that exchange's verbatim and dialogue; its card's three layers only if the card changed
    assert sizes in ([1, 1], [1, 1, 1, 1, 1])
    sizes.clear()
    kept, kept_rows = palace_budget(palace)
    (palace.derived_root / FILE).unlink()
    whole, whole_rows = palace_budget(palace)
    assert sizes == [n] * 5  # the recount, for comparison
    assert kept_rows == whole_rows and kept.to_dict() == whole.to_dict()
    assert budget_rows(palace) == kept_rows  # the rows alone, as the app reads them
    assert kept_rows[3].verbatim == rows[3].verbatim + 3 and kept.contexts == first.contexts


def test_figures_match_a_count_of_the_texts(palace, real_exports):
    from palace_lab.budget import card_text

    ingest_paths(palace, [real_exports])
    distill_palace(palace, RulesDistiller())
    _, rows = palace_budget(palace)
    cards = palace.card_map(RulesDistiller().version)
    exchanges = palace.exchanges()
    assert [r.exchange_id for r in rows] == [e.exchange_id for e in exchanges]
    for r, e in zip(rows, exchanges):
        c = cards[e.exchange_id]
        assert (r.verbatim, r.dialogue, r.project, r.timestamp) == (
            *count_tokens([e.verbatim, e.dialogue]), e.project, e.timestamp)
        assert (r.core, r.card, r.searched) == tuple(
            count_tokens([c.core_text, card_text(c), c.search_text]))
