"""The two nouns of evaluation: a *run* and *qrels*, both ``{query_id: {exchange_id: value}}``.

- **Run**: what one search mode returned for each query, ``{query_id: {exchange_id: score}}``.
  A higher score ranks higher. The rank of a result is derived, never stored: results are
  sorted by score descending and ties are broken by exchange id *ascending*, the order the
  search engine shows (:func:`palace_lab.model.rank_order`), so what is evaluated is what the
  person saw, whatever the dict's insertion order. (trec_eval breaks ties by docno
  *descending*; on a run file without tied scores the two agree exactly.)
- **Qrels**: graded relevance judgments, ``{query_id: {exchange_id: grade}}`` with integer
  grades 0-3 (0 judged not relevant, 1 marginal, 2 relevant, 3 the exchange asked for). A pair
  absent from the qrels is *unjudged*, which is not the same as grade 0.

Both are plain dicts so that ranx, trec_eval files and JSON read and write them unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from palace_lab.errors import InputError
from palace_lab.model import rank_order

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]

GRADES = (0, 1, 2, 3)
DEFAULT_REL_LEVEL = 2  # docs/evaluation.md: grade >= 2 counts as relevant unless set


def ranked(results: Mapping[str, float]) -> list[str]:
    """Exchange ids of one query's results, best first (score descending, then id ascending)."""
    return [doc for doc, _ in rank_order(results)]


def top_k(results: Mapping[str, float], k: int | None) -> list[str]:
    """The first ``k`` ranked exchange ids (all of them when ``k`` is None)."""
    order = ranked(results)
    return order if k is None else order[:k]


def check_grade(grade: object, where: str) -> int:
    """``grade`` as an int 0-3, or an InputError that says ``where`` it came from."""
    try:
        value = float(grade)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{where}: grade {grade!r} is not a number (grades are 0-3)") from None
    if isinstance(grade, bool) or not math.isfinite(value) or value != int(value) \
            or int(value) not in GRADES:
        raise InputError(f"{where}: grade {grade!r} is not one of 0, 1, 2, 3")
    return int(value)


def check_run(run: Mapping[str, Mapping[str, float]], name: str = "run") -> Run:
    """A copy of ``run`` with float scores, or an InputError naming the bad entry."""
    out: Run = {}
    for qid, results in run.items():
        if not isinstance(results, Mapping):
            raise InputError(f"{name}: query {qid!r} maps to {type(results).__name__}, "
                             "not {doc: score}")
        try:
            out[str(qid)] = {str(d): float(s) for d, s in results.items()}
        except (TypeError, ValueError):
            raise InputError(f"{name}: query {qid!r} has a score that is not a number") from None
    return out


def check_qrels(qrels: Mapping[str, Mapping[str, object]], name: str = "qrels") -> Qrels:
    """A copy of ``qrels`` with int grades 0-3, or an InputError naming the bad pair."""
    return {
        str(qid): {str(d): check_grade(g, f"{name}: {qid}/{d}") for d, g in docs.items()}
        for qid, docs in qrels.items()
    }
