"""Running a distiller over the palace: incremental, resumable, with progress.

Only *pending* exchanges are distilled (no card of this version, or a card made from older
text), so a rerun costs nothing and an interrupted run resumes where it stopped: cards are
written in small atomic batches as they are made. A paid backend's hard cost cap stops the run
after the last batch that fit; what was made is kept. Every card is redacted before it is
stored, whatever the backend.
"""

from __future__ import annotations

import time
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from palace_lab.distill.base import Distiller, DistillOutcome
from palace_lab.distill.corpus import palace_stats
from palace_lab.distill.plan import scope_size
from palace_lab.errors import BatchPendingError, CostCapExceededError
from palace_lab.model import Exchange

if TYPE_CHECKING:
    from palace_lab.store import Palace


@dataclass
class DistillSummary:
    distiller: str
    total: int = 0
    made: int = 0
    cached: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    budget_seconds: float = 0.0  # counting the new exchanges' and cards' tokens, after distilling
    stopped: str | None = None
    redactions: dict = field(default_factory=dict)

    @property
    def per_second(self) -> float:
        return self.made / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict:
        d = vars(self).copy()
        d["exchanges_per_second"] = round(self.per_second, 1)
        return d


class KVState(MutableMapping):
    """A backend's resumable state (e.g. a submitted batch id), kept in the palace's kv table."""

    def __init__(self, palace: Palace, prefix: str):
        self.palace, self.prefix = palace, f"state:{prefix}:"

    def __getitem__(self, key):
        value = self.palace.kv_get(self.prefix + key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key, value):
        self.palace.kv_set(self.prefix + key, str(value))

    def __delitem__(self, key):
        self.palace.kv_set(self.prefix + key, None)

    def __iter__(self):
        return (key[len(self.prefix):] for key in self.palace.kv_keys(self.prefix))

    def __len__(self):
        return sum(1 for _ in self)


def redact_outcome(outcome: DistillOutcome, tally: dict,
                   exchange: Exchange | None = None) -> DistillOutcome:
    """The outcome with every card field redacted (rooms and files included); pieces of the
    secrets found in ``exchange`` are removed too (see :func:`palace_lab.redact.redact_card`)."""
    from palace_lab.redact import redact_card, secrets_in

    known = secrets_in(exchange.verbatim) if exchange is not None else {}
    card, counts = redact_card(outcome.card, known)
    for kind, n in counts.items():
        tally[kind] = tally.get(kind, 0) + n
    return outcome if card is outcome.card else replace(outcome, card=card)


def distill_palace(
    palace: Palace,
    distiller: Distiller,
    *,
    exchange_ids: Sequence[str] | None = None,
    limit: int | None = None,
    batch_size: int = 32,
    progress: Callable[[int, int, list[DistillOutcome]], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    keep: Callable[[Palace, str, list[str]], None] | None = None,
) -> DistillSummary:
    """Distill the pending exchanges; returns what was made, cached, failed and spent.

    ``keep``, when given, runs once after cards were made, with the palace, the distiller
    version and the distilled exchange ids; its time is ``budget_seconds``. The edges that serve
    pages pass :func:`palace_lab.budget.keep_budget` (the budget page then reads the counts
    instead of counting). A parameter, not an import: budgets are measured after distilling.
    """
    version = distiller.version
    palace.register_distiller(version, distiller.backend, getattr(distiller, "config", None))
    if hasattr(distiller, "state"):
        distiller.state = KVState(palace, version)
    due = palace.pending_exchanges(version, exchange_ids)
    pending = due[:limit]
    summary = DistillSummary(version, total=len(pending),
                             cached=scope_size(palace, exchange_ids) - len(due))
    if not pending:
        return summary
    stats = palace_stats(palace)
    distiller.prepare(pending)
    start = time.perf_counter()
    try:
        _run_batches(palace, distiller, pending, stats, summary, batch_size, progress, should_stop)
    except CostCapExceededError as exc:
        summary.stopped = f"budget: {exc}"
    except BatchPendingError as exc:
        summary.stopped = f"pending: {exc} (run again to collect the results)"
    summary.seconds = time.perf_counter() - start
    if summary.made and keep is not None:
        start = time.perf_counter()
        keep(palace, version, [e.exchange_id for e in pending])
        summary.budget_seconds = round(time.perf_counter() - start, 2)
    sent = getattr(distiller, "redaction_report", None)
    for kind, count in (sent() if sent else {}).items():
        summary.redactions[kind] = summary.redactions.get(kind, 0) + count
    return summary


def _run_batches(palace: Palace, distiller, pending: list[Exchange], stats, summary, batch_size,
                 progress, should_stop) -> None:
    for i in range(0, len(pending), batch_size):
        if should_stop and should_stop():
            summary.stopped = "stopped by request"
            return
        chunk = pending[i:i + batch_size]
        try:
            made = distiller.distill_batch(chunk, stats=stats)
        except CostCapExceededError as exc:
            # Keep what the interrupted chunk already made, then stop.
            partial = [o for o in getattr(exc, "outcomes", []) if o is not None]
            _store(palace, partial, chunk, summary, progress)
            raise
        _store(palace, made, chunk, summary, progress)


def _store(palace: Palace, made: list[DistillOutcome], chunk: list[Exchange], summary, progress) -> None:
    if not made:
        return
    by_id = {e.exchange_id: e for e in chunk}
    outcomes = [redact_outcome(o, summary.redactions, by_id.get(o.card.exchange_id)) for o in made]
    palace.put_cards(outcomes, {e.exchange_id: e.hash for e in chunk})
    summary.made += len(outcomes)
    summary.failed += sum(1 for o in outcomes if o.card.fallback)
    summary.input_tokens += sum(o.input_tokens for o in outcomes)
    summary.output_tokens += sum(o.output_tokens for o in outcomes)
    summary.cost_usd += sum(o.cost_usd for o in outcomes)
    if progress:
        progress(summary.made, summary.total, outcomes)
