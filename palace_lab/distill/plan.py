"""What a distill run would do before it runs: the pending exchanges and what they would cost.

Concept: the CLI's ``distill``, the app's Load page and its Tuning page all show (and the CLI
confirms) the same plan, so it is made here once: :func:`plan_distill` over a palace and a
distiller (optionally a sample of exchange ids), read without writing anything.

Invariants:

- ``pending`` is exactly what :func:`palace_lab.distill.pipeline.distill_palace` would distill (no
  card of this version, or a card made from older text), in palace order.
- ``cost_usd`` is the distiller's own estimate for those exchanges (0 for offline backends);
  a plan with a cost needs the person's confirmation before it runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from palace_lab.model import Exchange

if TYPE_CHECKING:
    from palace_lab.distill.base import Distiller
    from palace_lab.store import Palace


@dataclass(frozen=True)
class DistillPlan:
    version: str
    pending: tuple[Exchange, ...]
    in_scope: int  # the exchanges considered: the palace's, or those of the sample
    cost_usd: float

    @property
    def done(self) -> int:
        """Exchanges in scope that already have this version's card."""
        return self.in_scope - len(self.pending)

    @property
    def paid(self) -> bool:
        return self.cost_usd > 0

    def confirmation(self) -> str:
        """The sentence a person accepts before a paid run."""
        return f"I accept a cost of about ${self.cost_usd:.4f}"


def plan_distill(palace: Palace, distiller: Distiller, *,
                 exchange_ids: Sequence[str] | None = None) -> DistillPlan:
    """The plan of a run of ``distiller`` over the palace (or over ``exchange_ids`` only)."""
    pending = tuple(palace.pending_exchanges(distiller.version, exchange_ids))
    return DistillPlan(distiller.version, pending, scope_size(palace, exchange_ids),
                       distiller.estimate_cost(pending))


def scope_size(palace: Palace, exchange_ids: Sequence[str] | None = None) -> int:
    """How many exchanges a run considers: the palace's, or those of ``exchange_ids`` it holds."""
    if exchange_ids is None:
        return palace.count("exchanges")
    return len(set(exchange_ids) & palace.exchange_hashes().keys())
