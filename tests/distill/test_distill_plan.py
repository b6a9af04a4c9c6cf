"""palace_lab.distill.plan: the pending exchanges and the cost of a run, counted by hand on a
palace of three exchanges."""

from __future__ import annotations

import json
import math

import pytest
from tiny_palace import fill

from palace_lab.distill.anthropic_backend import AnthropicDistiller
from palace_lab.distill.base import Distiller, DistillOutcome
from palace_lab.distill.llm_distiller import CARD_TOOL
from palace_lab.distill.plan import plan_distill
from palace_lab.distill.prompt import EXPECTED_CARD_TOKENS, INSTRUCTIONS
from palace_lab.llm.cost import resolve_prices
from palace_lab.model import DistilledCard


class Cent(Distiller):
    """One cent per exchange, estimated and spent."""

    backend = "fake"
    version = "fake:cent"

    def estimate_cost(self, exchanges):
        return 0.01 * len(exchanges)

    def distill_batch(self, exchanges, *, stats):
        return [DistillOutcome(DistilledCard(e.exchange_id, self.version, e.request, "", (), ()))
                for e in exchanges]


def test_pending_count_and_cost_of_the_whole_palace_and_of_a_sample(palace):
    from palace_lab.distill.pipeline import distill_palace

    fill(palace, 3)
    ids = [e.exchange_id for e in palace.exchanges()]
    plan = plan_distill(palace, Cent())
    assert (len(plan.pending), plan.in_scope, plan.done) == (3, 3, 0)
    assert plan.paid and plan.cost_usd == pytest.approx(0.03)
    assert plan.confirmation() == "I accept a cost of about $0.0300"
    distill_palace(palace, Cent(), exchange_ids=ids[:1])
    plan = plan_distill(palace, Cent())
    assert [e.exchange_id for e in plan.pending] == ids[1:] and plan.done == 1
    sample = plan_distill(palace, Cent(), exchange_ids=ids[:2])
    assert (len(sample.pending), sample.in_scope, sample.done) == (1, 2, 1)
    assert sample.cost_usd == pytest.approx(0.01)


def test_an_offline_distiller_plans_a_free_run(palace):
    from palace_lab.distill.rules import RulesDistiller

    fill(palace, 2)
    plan = plan_distill(palace, RulesDistiller())
    assert len(plan.pending) == 2 and plan.cost_usd == 0.0 and not plan.paid


def test_the_anthropic_estimate_by_hand(palace):
    fill(palace, 2)
    d = AnthropicDistiller(api_key="not-sent", use_batches=False)
    price = resolve_prices()["claude-haiku-4-5"]
    plan = plan_distill(palace, d)
    prefix = INSTRUCTIONS + json.dumps(CARD_TOOL.definition())
    # ceil(ascii chars / 3) + other chars input tokens each, EXPECTED_CARD_TOKENS out each.
    texts = [prefix + d._draft(e) for e in plan.pending]
    wide = [sum(ord(c) > 127 for c in t) for t in texts]
    tokens_in = sum(math.ceil((len(t) - w) / 3) + w for t, w in zip(texts, wide))
    by_hand = (tokens_in * price["input"] + 2 * EXPECTED_CARD_TOKENS * price["output"]) / 1e6
    assert plan.cost_usd == pytest.approx(by_hand)
