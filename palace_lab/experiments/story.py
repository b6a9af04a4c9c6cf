"""The retrieval half of the 11x story: what searching the distilled cards keeps.

Only graded query sets feed it (never a known-item probe), and every figure carries a 95%
bootstrap interval over the queries it rests on (``intervals``).

Best distilled MRR / best verbatim MRR, the best cross-layer mode and the default mode, over
:data:`palace_lab.experiments.query_sets.DEFAULT_MODES` on the judged queries of one query set,
as the paper reports them (0.717 / 0.745 = 96%; best cross-layer 0.759).

The figures are a derived cache, computed ahead (``./lab app`` runs ``python -m
palace_lab.experiments.story --db DB`` before the server starts) and read by the Overview: a small
JSON file in the figures cache (:mod:`palace_lab.store.figures`, kind ``story``), named by a hash of everything it depends on
(exchanges and cards, distiller version, embedder, modes, queries, judgments, the code that
computes it), so a stale figure is never shown and a fresh server reads it without loading any
model.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.experiments import query_sets as experiments
from palace_lab.experiments.prefs import main_version
from palace_lab.index.cache import cards_fingerprint
from palace_lab.model import content_hash
from palace_lab.search import DEFAULT_MODE
from palace_lab.settings import DEFAULT_EMBEDDER
from palace_lab.store import figures

if TYPE_CHECKING:
    from palace_lab.store import Palace

_CODE = ("palace_lab.experiments.story", "palace_lab.experiments.query_sets",
         "palace_lab.evaluate.bootstrap", "palace_lab.search.engine", "palace_lab.search.fusion",
         "palace_lab.search.modes", "palace_lab.index.layers", "palace_lab.evaluate.metrics",
         "palace_lab.evaluate.report")


def default_query_set(palace: Palace) -> str | None:
    """The graded set the Overview's headline rests on (``sample`` first; never a known-item
    probe: :func:`palace_lab.experiments.query_sets.headline_set`)."""
    return experiments.headline_set(palace, None)


def _path(palace: Palace, distiller: str, embedder: str, modes, queries, qrels) -> Path:
    code = content_hash(*(inspect.getsource(importlib.import_module(m)) for m in _CODE))
    key = content_hash(palace.fingerprint(), cards_fingerprint(palace, distiller), code,
                       distiller, embedder, json.dumps(list(modes)),
                       json.dumps(queries, sort_keys=True), json.dumps(qrels, sort_keys=True))
    return figures.figure_path(palace, "story", key[:16])


def retrieval_figures(palace: Palace, *, distiller: str | None, query_set: str | None, embedder: str,
                      engine=None, compute: bool = True,
                      progress: Callable[[str, int, int], None] | None = None) -> dict | None:
    """The story's retrieval summary (see the module docstring), from its cache file when there.

    ``query_set`` when graded, else the palace's first graded set (the value names the set used).
    None when there is nothing to measure (no cards or no graded queries), or when it is not
    cached and ``compute`` is False. ``engine``: a :class:`SearchEngine` of this palace and
    ``distiller`` to reuse (the app's shared one); ``progress(step, done, total)``.
    """
    query_set = experiments.headline_set(palace, query_set)  # graded only, never a probe
    queries, qrels = experiments.judged_set(palace, query_set) if query_set else ([], {})
    if not distiller or not queries:
        return None
    modes = list(experiments.DEFAULT_MODES)
    target = _path(palace, distiller, embedder, modes, queries, qrels)
    found = figures.read(target)
    if found is not None or not compute:
        return found
    value = _compute(engine or _engine(palace, distiller, embedder), modes, queries, qrels,
                     progress)
    value.update(query_set=query_set, queries=len(queries), modes=len(modes))
    figures.write(target, value)
    return value


def _engine(palace: Palace, distiller: str, embedder: str):
    from palace_lab.index.embed import get_embedder
    from palace_lab.search import SearchEngine

    return SearchEngine(palace, distiller=distiller, embedder=get_embedder(embedder))


def _compute(engine, modes, queries, qrels, progress) -> dict:
    engine.prepare(modes, progress=progress)
    texts = {q["query_id"]: q["query"] for q in queries}
    runs = {}
    for i, mode in enumerate(modes, start=1):
        runs[mode] = engine.run(texts, mode, 10)
        if progress:
            progress("running the modes", i, len(modes))
    report = experiments.report(runs, qrels, queries).to_dict()
    summary = {k: v for k, v in report["summary"].items() if k != "by_type"}
    default = next((r for r in report["modes"] if r["mode"] == DEFAULT_MODE), None)
    summary["default_mode"], summary["default_value"] = DEFAULT_MODE, default and default["mrr"]
    summary["intervals"] = experiments.headline_intervals(runs, qrels, summary)
    summary["tests"] = headline_tests(report["comparison"], summary)
    return summary


TEST_FIELDS = ("n", "diff", "d", "p_t", "p_t_adj", "p_w", "p_w_adj", "significant")


def headline_tests(comparison: dict | None, summary: dict) -> dict:
    """The paper table's paired tests (each mode against the best verbatim one, corrected over
    all of them) of the best distilled, best cross-layer and default modes, by summary key."""
    if not comparison:
        return {}
    rows = {r["a"]: r for r in comparison["comparisons"]}
    tests = {key: {f: rows[summary[key]][f] for f in TEST_FIELDS}
             for key in ("best_distilled", "best_cross", "default_mode") if summary.get(key) in rows}
    return {"test": comparison["test"], "correction": comparison["correction"],
            "alpha": comparison["alpha"], "baseline": comparison["baseline"],
            "comparisons": len(rows), **tests}


def main(argv: list[str] | None = None) -> int:
    """``python -m palace_lab.experiments.story --db DB``: compute (or find) the figures, print."""
    from palace_lab.store import Palace

    parser = argparse.ArgumentParser(prog="python -m palace_lab.experiments.story",
                                     description=main.__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--embedder", default=os.environ.get("PALACE_LAB_EMBEDDER") or DEFAULT_EMBEDDER)
    args = parser.parse_args(argv)
    with Palace.open(args.db, create=False) as palace:
        distiller = main_version(palace)
        found = retrieval_figures(palace, distiller=distiller, embedder=args.embedder,
                                  query_set=default_query_set(palace))
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
