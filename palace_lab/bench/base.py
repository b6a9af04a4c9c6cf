"""A public memory benchmark, read from its own files into one neutral shape.

A :class:`Benchmark` is what every loader returns: the conversations as palace JSONL records
(``conversation_id``, ``role``, ``content``, ``timestamp``, ``project``), the questions, and the
gold evidence of each question at one of two grains:

- **message** gold: ``(conversation_id, position)`` pairs, the 0-based line of the evidence
  message in its conversation (LoCoMo's ``D<session>:<turn>``, LongMemEval's ``has_answer``);
- **session** gold: conversation ids (DevMemBench's ``haystackSessionIds``, LongMemEval's
  ``answer_session_ids``).

Mapped to a palace (:func:`qrels_for`), an exchange is relevant (grade 1) when it holds an
evidence message; a question without message gold falls back to its sessions (any exchange of
a gold session is relevant). Session-level recall always uses the sessions (given, or those
holding the evidence messages).

``scope`` says which exchanges a question may search: a question's ``project`` (one LoCoMo
sample, one LongMemEval haystack) or, when ``None``, the whole palace. ``dropped`` counts the
questions a loader left out, by reason, so that a count can be checked against the source's.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from palace_lab.errors import PalaceError


@dataclass(frozen=True)
class Question:
    query_id: str
    query: str
    type: str
    project: str | None = None           # the scope the question searches (None: everything)
    messages: tuple[tuple[str, int], ...] = ()   # message gold: (conversation_id, position)
    sessions: tuple[str, ...] = ()               # session gold: conversation ids

    def to_query(self) -> dict:
        return {"query_id": self.query_id, "query": self.query, "type": self.type}


@dataclass
class Benchmark:
    name: str
    records: list[dict]
    questions: list[Question]
    gold: str                     # "message" | "session"
    dropped: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def sessions_of(self) -> dict[str, str | None]:
        """``{conversation_id: project}`` of every conversation in the records."""
        return {r["conversation_id"]: r.get("project") for r in self.records}

    def summary(self) -> dict:
        return {"benchmark": self.name, "gold": self.gold, "questions": len(self.questions),
                "conversations": len(self.sessions_of()), "messages": len(self.records),
                "by_type": dict(sorted(Counter(q.type for q in self.questions).items())),
                "dropped": dict(sorted(self.dropped.items())), "notes": list(self.notes)}


def read_json_list(path: Path, what: str, needs: str | None = None) -> list:
    """The JSON list in ``path``; with ``needs``, every item a dict holding that key. One clear
    error naming ``what`` was expected otherwise."""
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise PalaceError(f"cannot read {what} {path}: {exc}") from None
    if not isinstance(data, list) or (needs and not all(isinstance(i, dict) and needs in i
                                                        for i in data)):
        shape = f"a JSON list of objects with {needs!r}" if needs else "a JSON list"
        raise PalaceError(f"{path} is not {what}: expected {shape}")
    return data


def qrels_for(questions: Iterable[Question], exchanges: Iterable) -> dict[str, dict[str, int]]:
    """Graded qrels (grade 1) over the palace's exchanges; questions with no relevant exchange
    are left out (their evidence did not map; the caller counts them)."""
    by_conv: dict[str, list] = {}
    for e in exchanges:
        by_conv.setdefault(e.conversation_id, []).append(e)
    qrels = {}
    for q in questions:
        relevant = set()
        for cid, position in q.messages:
            relevant.update(e.exchange_id for e in by_conv.get(cid, ())
                            if e.ply_start <= position <= e.ply_end)
        for cid in () if q.messages else q.sessions:
            relevant.update(e.exchange_id for e in by_conv.get(cid, ()))
        if relevant:
            qrels[q.query_id] = {eid: 1 for eid in sorted(relevant)}
    return qrels


def gold_sessions(q: Question) -> set[str]:
    """The sessions that hold a question's answer, at either grain."""
    return set(q.sessions) | {cid for cid, _ in q.messages}
