"""A/B sessions: one query, two search modes side by side, graded by the person.

Invariants:

- A lab query's id is derived from its text (:func:`lab_query_id`: whitespace collapsed, case
  folded), so typing the same query again finds its earlier grades. The query is stored in the
  palace's query set :data:`LAB_SET` the first time it is searched.
- Grades are pooled: a judgment is keyed by (query, exchange), not by the side that showed
  it, so an exchange both modes returned is graded once and counts for both. Grades are stored
  as judge :data:`JUDGE` (``human``), which takes precedence over imported and LLM grades.
- Live metrics are the evaluation module's own (:mod:`palace_lab.evaluate.metrics`) over the
  one query, with every judgment of that query the palace holds (merged by precedence).
  Unjudged results count as grade 0 and ``judged@10`` says how much of the top 10 is graded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from palace_lab.errors import InputError
from palace_lab.evaluate.metrics import per_query
from palace_lab.model import Hit, content_hash
from palace_lab.text.broken import mend

if TYPE_CHECKING:
    from palace_lab.store import Palace

LAB_SET = "lab"
JUDGE = "human"
LIVE_METRICS = ("mrr", "p@1", "ndcg@10", "mean_grade@10", "judged@10")
GRADE_MEANINGS = {0: "not relevant", 1: "marginal", 2: "relevant", 3: "what I was looking for"}


def normalise_query(text: str) -> str:
    """The query as the lab stores and hashes it: mended (as the engine searches it), spaces
    squashed."""
    return " ".join(mend(text).split())


def lab_query_id(text: str) -> str:
    """``lab-`` + 12 hex digits of SHA-1 over the normalised, case-folded query text."""
    return "lab-" + content_hash(normalise_query(text).casefold())[:12]


@dataclass(frozen=True)
class ABResult:
    """Both sides of one A/B query; ``pooled`` is their union in order of best rank."""

    query_id: str
    query: str
    mode_a: str
    mode_b: str
    hits_a: tuple[Hit, ...]
    hits_b: tuple[Hit, ...]

    @property
    def pooled(self) -> list[str]:
        best: dict[str, int] = {}
        for hits in (self.hits_a, self.hits_b):
            for h in hits:
                best[h.exchange_id] = min(h.rank, best.get(h.exchange_id, h.rank))
        return sorted(best, key=lambda e: (best[e], e))

    @property
    def overlap(self) -> int:
        return len({h.exchange_id for h in self.hits_a} & {h.exchange_id for h in self.hits_b})


def remember_query(palace: Palace, text: str) -> str:
    """Store ``text`` in the lab query set (once) and return its query id."""
    qid = lab_query_id(text)
    if not any(q["query_id"] == qid for q in palace.queries(LAB_SET)):
        palace.put_queries(LAB_SET, [{"query_id": qid, "query": normalise_query(text)}])
    return qid


def run_ab(search, query: str, mode_a: str, mode_b: str, k: int = 10) -> ABResult:
    """Search ``query`` with both modes; ``search(query, mode, k)`` is ``SearchEngine.search``."""
    text = normalise_query(query)
    if not text:
        raise InputError("the query is empty")
    return ABResult(lab_query_id(text), text, mode_a, mode_b,
                    tuple(search(text, mode_a, k)), tuple(search(text, mode_b, k)))


def grades(palace: Palace, query_id: str) -> dict[str, int]:
    """Every judgment of one query (merged by judge precedence: human first)."""
    return palace.qrels(query_ids=[query_id]).get(query_id, {})


def grade(palace: Palace, query_id: str, exchange_id: str, value: int | None) -> None:
    """Store the person's grade (0-3) of one pooled result; None removes it."""
    if value is None:
        palace.delete_judgment(query_id, exchange_id, JUDGE)
    else:
        palace.put_judgments(JUDGE, {query_id: {exchange_id: int(value)}})


def live_metrics(judged: dict[str, int], hits, metrics=LIVE_METRICS) -> dict[str, float]:
    """The metrics of one ranked list of hits against one query's judgments."""
    run = {"q": {h.exchange_id: float(-h.rank) for h in hits}}  # rank order, ties impossible
    values = per_query({"q": dict(judged)}, run, list(metrics))
    return {m: values[m]["q"] for m in metrics}


def history(palace: Palace, limit: int = 30) -> list[dict]:
    """The lab queries, newest first, with how many of their results the person graded."""
    return palace.graded_history(LAB_SET, JUDGE, limit)
