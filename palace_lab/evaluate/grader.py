"""An optional LLM grader: query-result pairs graded 0-3 by one or several models.

Each pair is one structured call through :class:`palace_lab.llm.LLMClient` (forced tool call,
answer validated against :data:`GRADE_SCHEMA`, one repair turn, retries, a hard cost cap). The
exchange text is redacted before it leaves the machine and cut to ``max_chars`` (its middle is
dropped). Both the instructions and the user turn open with :data:`MARKER`, so a transcript of
our own calls, should one ever be exported, is skipped by the ingest.

Several graders are combined per pair by a *consensus*: ``median`` (the lower median,
``statistics.median_low``, so the result stays a grade and leans strict on ties) or
``majority`` (the most frequent grade; a tie goes to the lower grade). Agreement between
graders is Fleiss' kappa (Fleiss 1971, "Measuring nominal scale agreement among many raters",
Psychological Bulletin 76(5), 378-382) over the pairs every grader graded:

    p_j = sum_i n_ij / (N n)              share of all ratings in category j
    P_i = (sum_j n_ij^2 - n) / (n (n-1))  agreement on subject i
    kappa = (mean_i P_i - sum_j p_j^2) / (1 - sum_j p_j^2)

with N subjects (pairs), n raters per subject and n_ij the raters who put subject i in
category j. Kappa treats grades as nominal; the paper reports kappa = 0.175 for its 5 graders.
Grades are stored in the palace as judge ``llm:<model>``.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from palace_lab.errors import InputError
from palace_lab.evaluate.base import GRADES, Qrels
from palace_lab.llm.client import run_bounded

MARKER = "[palace_lab:grade]"
TOOL_NAME = "record_grade"
TOOL_DESCRIPTION = "Record the relevance grade of the exchange for the query."
EXPECTED_GRADE_TOKENS = 90  # a typical answer (grade + one sentence) as a tool call
MAX_GRADE_TOKENS = 300

RUBRIC = f"""{MARKER} You judge search results over one person's history with a coding agent. \
The person typed a query to find an earlier exchange (their request and everything the agent \
did in answer: replies, tool calls, tool output). You see the query and one exchange. Grade how \
well this exchange answers the query, on this scale:

3  The exchange is what the query is looking for: it contains the decision, fix, file, error \
or explanation the query names, and the person would stop searching here.
2  Relevant: the exchange substantially deals with what the query asks, but it is not the \
place the answer was settled (a partial attempt, an earlier step, a closely related case).
1  Marginal: it shares the topic, a file or some of the query's terms, but would not help the \
person find what they were looking for.
0  Not relevant: unrelated, or the query's words occur only in passing.

Rules: judge only from the text shown. Matching words are not enough; the exchange must be \
about what the query asks. Do not reward length. An exchange that was cut short (marked as \
omitted characters) is judged on what is visible. Call {TOOL_NAME} once with the grade and one \
short sentence saying why."""

USER_TEMPLATE = f"""{MARKER} Query: <query>{{query}}</query>

Exchange {{exchange_id}}:
<exchange>
{{text}}
</exchange>"""

GRADE_SCHEMA: dict = {
    "type": "object",
    "additionalProperties": False,
    "required": ["grade", "reason"],
    "properties": {
        "grade": {"type": "integer", "enum": list(GRADES)},
        "reason": {"type": "string", "maxLength": 400},
    },
}


def _shorten(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters by dropping its middle (requests open an
    exchange and outcomes close it, so both ends are kept)."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[len(text) - limit // 3:]
    return f"{head}\n[… {len(text) - len(head) - len(tail)} characters omitted …]\n{tail}"


@dataclass(frozen=True)
class GradeItem:
    """One pair to grade: a query and the text of one exchange."""

    query_id: str
    query: str
    exchange_id: str
    text: str


def user_text(item: GradeItem, *, max_chars: int = 6000) -> str:
    """The user turn for ``item``: redacted, the exchange cut to about ``max_chars``."""
    from palace_lab.redact import redact_text

    text = _shorten(redact_text(item.text), max_chars)
    return USER_TEMPLATE.format(query=redact_text(item.query), exchange_id=item.exchange_id, text=text)


@dataclass(frozen=True)
class Grading:
    """One grader's answers: ``qrels``, the pairs that failed and why, what it cost."""

    judge: str
    qrels: Qrels
    reasons: dict[str, str] = field(default_factory=dict)  # "qid/eid" -> the grader's reason
    failures: dict[str, str] = field(default_factory=dict)  # "qid/eid" -> error
    cost_usd: float = 0.0
    stopped: str | None = None  # why grading stopped early (the cost cap), if it did

    @property
    def graded(self) -> int:
        return sum(len(docs) for docs in self.qrels.values())


def _pair(item: GradeItem) -> str:
    return f"{item.query_id}/{item.exchange_id}"


def judge_name(client: Any) -> str:
    return f"llm:{client.model}"


def estimate_grading_cost(client: Any, items: Sequence[GradeItem], *, max_chars: int = 6000) -> float:
    """Dollars to grade ``items`` with ``client`` (instructions + pair in, a typical grade out)."""
    import json

    prefix = RUBRIC + json.dumps(GRADE_SCHEMA)
    texts = [prefix + user_text(item, max_chars=max_chars) for item in items]
    return client.estimate_cost(texts, EXPECTED_GRADE_TOKENS)


def grade(client: Any, items: Sequence[GradeItem], *, max_chars: int = 6000,
          max_concurrency: int | None = None) -> Grading:
    """Grade every pair with one model. ``client`` is an :class:`~palace_lab.llm.LLMClient`
    (or anything with ``model`` and ``call_json``). A failed pair is listed in ``failures``;
    when the cost cap is reached the remaining pairs are not sent and ``stopped`` says so."""
    def ask(item: GradeItem):
        return client.call_json(RUBRIC, user_text(item, max_chars=max_chars), GRADE_SCHEMA,
                                tool_name=TOOL_NAME, tool_description=TOOL_DESCRIPTION,
                                max_tokens=MAX_GRADE_TOKENS)

    workers = max_concurrency or getattr(client, "max_concurrency", 1)
    outcome = run_bounded(ask, list(items), max_concurrency=workers)
    qrels: Qrels = {}
    reasons, failures, cost = {}, {}, 0.0
    for item, result in zip(items, outcome.results):
        if result is None:
            failures[_pair(item)] = "not sent: grading stopped early"
            continue
        cost += result.cost_usd
        if result.ok:
            qrels.setdefault(item.query_id, {})[item.exchange_id] = int(result.data["grade"])
            reasons[_pair(item)] = result.data.get("reason", "")
        else:
            failures[_pair(item)] = result.error or "no answer"
    stopped = str(outcome.error) if outcome.error else None
    return Grading(judge_name(client), qrels, reasons, failures, cost, stopped)


def grade_with(clients: Sequence[Any], items: Sequence[GradeItem], **options) -> dict[str, Grading]:
    """``{judge: Grading}``: every pair graded by every model, one model after the other."""
    return {judge_name(c): grade(c, items, **options) for c in clients}


def items_for(palace: Any, queries: Mapping[str, str], pool: Mapping[str, Sequence[str]]) -> list[GradeItem]:
    """Grade items for a judging pool ``{query_id: [exchange_id]}`` with the verbatim text."""
    items, missing = [], []
    for qid, exchange_ids in pool.items():
        if qid not in queries:
            raise InputError(f"query {qid!r} of the pool has no text among the queries")
        for eid in exchange_ids:
            exchange = palace.exchange(eid)
            if exchange is None:
                missing.append(eid)
                continue
            items.append(GradeItem(qid, queries[qid], eid, exchange.verbatim))
    if missing:
        raise InputError(f"{len(missing)} pooled exchanges are not in the palace: {', '.join(missing[:5])}")
    return items


def save_grades(palace: Any, gradings: Mapping[str, Grading]) -> int:
    """Store every grader's qrels as judge ``llm:<model>``; returns the number of rows written."""
    return sum(palace.put_judgments(g.judge, g.qrels) for g in gradings.values())


# ---------------------------------------------------------------------------------- consensus


def median_grade(grades: Sequence[int]) -> int:
    return int(statistics.median_low(grades))


def majority_grade(grades: Sequence[int]) -> int:
    counts = Counter(grades)
    top = max(counts.values())
    return min(g for g, c in counts.items() if c == top)


CONSENSUS = {"median": median_grade, "majority": majority_grade}


def _grades_by_pair(by_judge: Mapping[str, Qrels]) -> dict[tuple[str, str], list[int]]:
    pairs: dict[tuple[str, str], list[int]] = {}
    for judge in sorted(by_judge):
        for qid, docs in by_judge[judge].items():
            for eid, grade_ in docs.items():
                pairs.setdefault((qid, eid), []).append(int(grade_))
    return pairs


def consensus(by_judge: Mapping[str, Qrels], method: str = "median", *, min_graders: int = 1) -> Qrels:
    """One grade per pair from several graders' qrels ``{judge: qrels}``; pairs graded by fewer
    than ``min_graders`` graders are left out."""
    if method not in CONSENSUS:
        raise InputError(f"unknown consensus {method!r}; valid: {', '.join(CONSENSUS)}")
    out: Qrels = {}
    for (qid, eid), grades in sorted(_grades_by_pair(by_judge).items()):
        if len(grades) >= min_graders:
            out.setdefault(qid, {})[eid] = CONSENSUS[method](grades)
    return out


# ---------------------------------------------------------------------------------- agreement


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float:
    """Fleiss' kappa of an N x k matrix: ``counts[i][j]`` raters put subject i in category j.

    Every row must hold the same number n >= 2 of ratings. Kappa is undefined (NaN) when
    chance agreement is 1, i.e. every rating fell in one category."""
    rows = [list(map(int, r)) for r in counts]
    if not rows:
        raise InputError("Fleiss' kappa needs at least one subject")
    n = sum(rows[0])
    if n < 2 or any(sum(r) != n for r in rows) or any(len(r) != len(rows[0]) for r in rows):
        raise InputError("Fleiss' kappa needs the same number (>= 2) of ratings in every row")
    big_n = len(rows)
    p_j = [sum(r[j] for r in rows) / (big_n * n) for j in range(len(rows[0]))]
    p_i = [(sum(c * c for c in r) - n) / (n * (n - 1)) for r in rows]
    p_bar, p_e = sum(p_i) / big_n, sum(p * p for p in p_j)
    if p_e == 1.0:
        return float("nan")
    return (p_bar - p_e) / (1 - p_e)


def rating_counts(by_judge: Mapping[str, Qrels]) -> tuple[list[list[int]], list[tuple[str, str]]]:
    """The N x 4 count matrix over the pairs that *every* grader graded, and those pairs."""
    graders = len(by_judge)
    shared = [(p, g) for p, g in sorted(_grades_by_pair(by_judge).items()) if len(g) == graders]
    return [[g.count(c) for c in GRADES] for _, g in shared], [p for p, _ in shared]


def agreement(by_judge: Mapping[str, Qrels]) -> dict:
    """Fleiss' kappa and exact agreement over the pairs every grader graded."""
    if len(by_judge) < 2:
        raise InputError("agreement needs at least two graders")
    counts, pairs = rating_counts(by_judge)
    if not pairs:
        return {"graders": sorted(by_judge), "pairs": 0, "fleiss_kappa": None, "all_agree": None}
    kappa = fleiss_kappa(counts)
    return {"graders": sorted(by_judge), "pairs": len(pairs),
            "fleiss_kappa": None if kappa != kappa else kappa,
            "all_agree": sum(1 for r in counts if max(r) == len(by_judge)) / len(pairs)}
