"""The story's retrieval figures: computed once, cached on disk by what they depend on, read
back without computing; nothing to show without cards or judged queries."""

from __future__ import annotations

import json

import lab_palaces
from palace_lab.experiments import query_sets as experiments
from palace_lab.experiments.story import default_query_set, main, main_version, retrieval_figures


def test_figures_are_computed_once_then_read_from_their_cache(tmp_path):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        version = main_version(palace)
        args = dict(distiller=version, query_set="sample", embedder="fake")
        assert retrieval_figures(palace, compute=False, **args) is None
        made = retrieval_figures(palace, **args)
        assert made["queries"] == 4 and made["modes"] == len(experiments.DEFAULT_MODES)
        ratio = made["best_distilled_value"] / made["best_verbatim_value"]
        assert abs(made["distilled_over_verbatim"] - ratio) < 1e-3
        assert retrieval_figures(palace, compute=False, **args) == made
        files = list((tmp_path / "p.db.indexes" / "figures").glob("story-*.json"))
        assert len(files) == 1
        # a new judgment changes what the figures depend on: the old file is not read
        ids = lab_palaces.exchange_ids(palace)
        palace.put_judgments("qrels:sample", {"q1": {ids["cache"]: 1}})
        assert retrieval_figures(palace, compute=False, **args) is None


def test_nothing_to_show_without_cards_or_judged_queries(tmp_path):
    with lab_palaces.build(tmp_path / "a.db", distill=False) as palace:
        assert main_version(palace) is None
        assert retrieval_figures(palace, distiller=None, query_set="sample", embedder="fake") is None
    with lab_palaces.build(tmp_path / "b.db", judged=False) as palace:
        assert default_query_set(palace) is None
        assert retrieval_figures(palace, distiller=main_version(palace), query_set=None,
                                 embedder="fake") is None


def test_the_command_computes_what_the_app_reads(tmp_path, capsys):
    lab_palaces.build(tmp_path / "p.db").close()
    assert main(["--db", str(tmp_path / "p.db"), "--embedder", "fake"]) == 0
    printed = json.loads(capsys.readouterr().out)
    with lab_palaces.build(tmp_path / "p.db") as palace:  # build again: ingest is a no-op
        cached = retrieval_figures(palace, distiller=main_version(palace), query_set="sample",
                                   embedder="fake", compute=False)
    assert cached == printed and printed["query_set"] == "sample"
