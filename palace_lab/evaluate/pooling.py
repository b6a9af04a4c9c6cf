"""Pooled grading of one's own questions: the honest ground truth for one's own history.

A person writes (or imports) a handful of questions they would really ask of their history.
Several search modes run each question; the *pool* of a question is the union of every mode's
top ``depth`` hits (TREC's depth-k pooling: :func:`palace_lab.evaluate.sweep.pool_runs`),
each exchange once. The person grades the pool 0-3 without knowing which mode found a hit or
at what rank: :func:`hidden_order` shuffles each question's pool with a seed drawn from the
question id, so the order says nothing about any mode (and is the same on every visit). Every
pooled mode is then fully judged to that depth, and the paper-style table over those modes is
the person's own result.

Invariants: a question's id is ``mine-`` + 12 hex digits of SHA-1 over its normalised,
case-folded text (adding the same question twice stores it once); questions live in the query
set :data:`OWN_SET`, grades under judge ``human`` (stored as the A/B lab stores them,
:func:`palace_lab.experiments.ab.grade`; human grades take precedence over imported and LLM
grades). Grades are 0-3 (:data:`palace_lab.evaluate.base.GRADES`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from palace_lab.evaluate.base import Qrels, Run
from palace_lab.evaluate.sweep import pool_runs
from palace_lab.model import content_hash

if TYPE_CHECKING:
    from palace_lab.store import Palace

OWN_SET = "mine"
DEPTH = 5


def own_query_id(text: str) -> str:
    """``mine-`` + 12 hex digits of SHA-1 over the normalised, case-folded question."""
    return "mine-" + content_hash(" ".join(text.split()).casefold())[:12]


def parse_questions(text: str) -> list[dict]:
    """Questions from pasted text or a file: one per line, or JSONL lines with ``"query"``
    (a queries file as ``palace-lab`` reads it). Blank lines and ``#`` comments are skipped;
    a repeated question is kept once."""
    out: dict[str, dict] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            try:
                line = str(json.loads(line).get("query") or "").strip()
            except (ValueError, AttributeError):
                pass  # not JSON after all: the line is the question
        if line:
            qid = own_query_id(line)
            out.setdefault(qid, {"query_id": qid, "query": " ".join(line.split()), "type": "own"})
    return list(out.values())


def add_questions(palace: Palace, questions: Iterable[dict]) -> int:
    """Store ``questions`` in the set :data:`OWN_SET`; returns how many were new."""
    have = {q["query_id"] for q in palace.queries(OWN_SET)}
    new = [q for q in questions if q["query_id"] not in have]
    if new:
        palace.put_queries(OWN_SET, new)
    return len(new)


def hidden_order(pool: Mapping[str, list[str]], *, seed: int = 0) -> dict[str, list[str]]:
    """Each question's pooled exchanges shuffled by a seed drawn from the question id, so the
    order reveals neither mode nor rank (and is stable across visits)."""
    out = {}
    for qid, docs in pool.items():
        order = sorted(docs)  # independent of the input order, hence of every rank
        random.Random(f"{seed}:{qid}").shuffle(order)
        out[qid] = order
    return out


def pooled(runs: Iterable[Run], depth: int = DEPTH, *, seed: int = 0) -> dict[str, list[str]]:
    """``{question_id: [exchange_id, ...]}``: every run's top ``depth``, each exchange once,
    in hidden order; graded pairs stay in (a grade can be changed)."""
    return hidden_order(pool_runs(list(runs), depth), seed=seed)


@dataclass(frozen=True)
class Progress:
    """How much of a pool is graded: pairs, and questions whose whole pool is graded."""

    graded: int
    pairs: int
    questions_done: int
    questions: int

    @property
    def complete(self) -> bool:
        return self.graded == self.pairs


def progress(pool: Mapping[str, list[str]], qrels: Qrels) -> Progress:
    graded = {q: sum(1 for d in docs if d in qrels.get(q, {})) for q, docs in pool.items()}
    return Progress(sum(graded.values()), sum(len(d) for d in pool.values()),
                    sum(1 for q, docs in pool.items() if graded[q] == len(docs)), len(pool))


def next_ungraded(pool: Mapping[str, list[str]], qrels: Qrels,
                  after: tuple[str, int] | None = None) -> tuple[str, int] | None:
    """The first ungraded ``(question_id, position)`` after ``after`` (wrapping round), or None
    when every pooled pair is graded. Questions in the pool's order."""
    slots = [(q, i) for q in pool for i in range(len(pool[q]))]
    start = slots.index(after) + 1 if after in slots else 0
    for q, i in slots[start:] + slots[:start]:
        if pool[q][i] not in qrels.get(q, {}):
            return q, i
    return None
