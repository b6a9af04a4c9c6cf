"""The distillation runner: partial chunks kept on a budget stop, pending batches reported."""

from __future__ import annotations

from tiny_palace import fill

from palace_lab.distill.base import Distiller, DistillOutcome
from palace_lab.distill.pipeline import distill_palace
from palace_lab.errors import BatchPendingError, CostCapExceededError
from palace_lab.model import DistilledCard, Room


def card(e, version):
    return DistillOutcome(DistilledCard(e.exchange_id, version, e.request, e.request,
                                        (Room("workflow", "feature", "Feature", 0.5),), ()),
                          cost_usd=0.01)


class Capped(Distiller):
    """Makes two cards, then the cap stops it in the middle of the second chunk."""

    backend = "fake"
    version = "fake:capped"

    def __init__(self):
        self.calls = 0

    def distill_batch(self, exchanges, *, stats):
        self.calls += 1
        if self.calls == 1:
            return [card(e, self.version) for e in exchanges]
        exc = CostCapExceededError("cost cap of $0.03 reached")
        exc.outcomes = [card(exchanges[0], self.version), None]
        raise exc


class Pending(Distiller):
    backend = "fake"
    version = "fake:pending"

    def distill_batch(self, exchanges, *, stats):
        raise BatchPendingError("batch msgbatch_1 is still running")


def test_budget_stop_keeps_what_the_interrupted_chunk_made(palace):
    fill(palace)
    summary = distill_palace(palace, Capped(), batch_size=2)
    assert summary.stopped.startswith("budget: cost cap")
    assert summary.made == 3 and palace.count("cards") == 3
    assert round(summary.cost_usd, 2) == 0.03
    again = distill_palace(palace, Capped(), batch_size=2)  # resumes with what is left
    assert again.cached == 3 and again.total == 2


def test_pending_batch_is_reported_not_raised(palace):
    fill(palace, 2)
    summary = distill_palace(palace, Pending())
    assert summary.stopped.startswith("pending: batch msgbatch_1")
    assert summary.made == 0


def test_only_the_chosen_exchanges(palace):
    fill(palace, 4)
    ids = [e.exchange_id for e in palace.exchanges()][:2]
    summary = distill_palace(palace, Capped(), exchange_ids=ids, batch_size=10)
    assert summary.total == 2 and summary.made == 2 and summary.cached == 0
