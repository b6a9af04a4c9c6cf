"""What the report says, gathered from one palace: aggregates only, every text redacted.

The figures are the lab's own, never recomputed here: the headline is
:attr:`palace_lab.budget.BudgetSummary.headline` (what ``palace-lab budget --json`` prints as
``headline``), retrieval is :func:`palace_lab.experiments.story.retrieval_figures` (what the
Overview shows; the same means as ``palace-lab eval --json`` over the same modes and graded
queries). Retrieval is reported only from a *graded* query set
(:func:`palace_lab.experiments.query_sets.graded_sets`); generated known-item queries are not
graded questions, so a palace with only those gets a note instead of a figure.

Charts are the lab's builders (:mod:`palace_lab.charts`) fed with aggregates: 1,000-exchange
bars, a binned size histogram, the largest rooms. Whatever the palace's size, the report holds
a few dozen numbers per chart and five example cards, never per-exchange data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from palace_lab.redact import redact_text
from palace_lab.report.examples import Example, typical_examples

if TYPE_CHECKING:
    from palace_lab.store import Palace

NOT_COMPUTED = "not computed yet"
MAX_ROOMS = 30  # the treemap's rooms: the largest, so it stays legible on a phone
EMBEDDER_NAMES = {"minilm": "all-MiniLM-L6-v2 (packaged, 384-d)",
                  "minilm-static": "word-piece table distilled from all-MiniLM-L6-v2",
                  "fake": "hashed bag of words (tests only)"}


@dataclass(frozen=True)
class Retrieval:
    """The retrieval figures of one graded set, or why there are none (``figures`` None)."""

    query_set: str | None
    figures: dict | None
    reason: str | None = None


@dataclass(frozen=True)
class ReportFacts:
    """Everything the report shows; strings already redacted, charts as Plotly JSON text."""

    title: str
    palace: str
    budget: dict
    retrieval: Retrieval
    examples: tuple[Example, ...]
    contents: dict
    versions: dict
    charts: dict = field(default_factory=dict)


def gather(palace: Palace, *, title: str | None = None, query_set: str | None = None,
           distiller: str | None = None, embedder: str = "minilm", compute: bool = True,
           progress: Callable[[str, int, int], None] | None = None) -> ReportFacts:
    """The facts of ``palace`` for one distiller version (default: the palace's default) and
    one graded query set (default: the sample's, else the first graded set)."""
    from palace_lab.budget import palace_budget

    distiller = distiller or palace.latest_distiller()
    summary, rows = palace_budget(palace, distiller)
    name = redact_text(palace.path.name)
    facts = ReportFacts(
        title=redact_text(title) if title else f"Agent memory, distilled: {name}",
        palace=name, budget=summary.to_dict(),
        retrieval=_retrieval(palace, distiller, query_set, embedder, compute, progress),
        examples=tuple(typical_examples(palace, rows, distiller, summary.distilled_layer))
        if distiller else (),
        contents=_contents(palace), versions=_versions(palace, distiller, summary, embedder))
    return replace(facts, charts=_charts(palace, summary, rows, distiller))


def _retrieval(palace: Palace, distiller: str | None, query_set: str | None, embedder: str,
               compute: bool, progress) -> Retrieval:
    from palace_lab.errors import InputError
    from palace_lab.experiments import query_sets as sets
    from palace_lab.experiments.story import retrieval_figures

    if query_set is not None and query_set not in palace.query_sets():
        known = ", ".join(palace.query_sets()) or "none"
        raise InputError(f"no query set {query_set!r} in this palace; its sets: {known}")
    if query_set is not None and sets.is_probe(query_set):
        return Retrieval(query_set, None, f"query set {query_set!r} is a known-item probe, "
                         "not graded questions")
    chosen = sets.headline_set(palace, query_set)
    if chosen is None or (query_set is not None and chosen != query_set):
        return Retrieval(query_set, None, "no graded query set" if query_set is None else
                         f"query set {query_set!r} holds no graded question")
    if not distiller:
        return Retrieval(chosen, None, "no distilled cards yet")
    figures = retrieval_figures(palace, distiller=distiller, query_set=chosen, embedder=embedder,
                                compute=compute, progress=progress)
    return Retrieval(chosen, figures, None if figures else NOT_COMPUTED)


def _contents(palace: Palace) -> dict:
    from palace_lab.store.contents import palace_contents

    d = palace_contents(palace).to_dict()
    d["projects"] = {redact_text(k): v for k, v in d["projects"].items()}
    return d


def _versions(palace: Palace, distiller: str | None, summary, embedder: str) -> dict:
    row = next((v for v in palace.distiller_versions() if v["version"] == distiller), {})
    return {"distiller": distiller, "backend": row.get("backend"),
            "fallbacks": row.get("fallbacks") or 0, "tokenizer": summary.encoding,
            "embedder": embedder, "embedder_model": EMBEDDER_NAMES.get(embedder, embedder)}


def _charts(palace: Palace, summary, rows, distiller: str | None) -> dict:
    """The charts as Plotly JSON text (aggregates: bars, bins, the largest rooms)."""
    from palace_lab.charts.budget import per_1000_bars, token_histogram

    bars = per_1000_bars(summary)  # like for like: dialogue beside the paper's verbatim
    for trace in bars.data:  # "paper<br>(14,340 exchanges)": two short lines fit a phone
        trace.x = [str(label).replace(" (", "<br>(") for label in trace.x]
    bars.update_layout(legend=dict(yanchor="top", y=-0.2))  # below the two-line labels
    charts = {"per_1000": bars,
              "sizes": token_histogram(rows, distilled=summary.distilled_layer)}
    stats = _room_stats(palace, rows, distiller)
    if stats:
        from palace_lab.charts.rooms import room_map

        charts["rooms"] = room_map(stats, max_rooms=MAX_ROOMS).update_layout(height=420)
    return {name: fig.to_json() for name, fig in charts.items()}


def _room_stats(palace: Palace, rows, distiller: str | None) -> list:
    """The largest rooms (:func:`palace_lab.rooms.room_stats`), labels redacted."""
    from palace_lab import rooms

    if not distiller:
        return []
    tokens = {r.exchange_id: r.verbatim for r in rows}
    stats = rooms.room_stats(palace.card_rooms(distiller), tokens)[:MAX_ROOMS]
    return [replace(s, room_key=redact_text(s.room_key), room_label=redact_text(s.room_label))
            for s in stats]
