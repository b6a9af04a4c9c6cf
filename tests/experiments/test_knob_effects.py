"""A rules knob either changes cards or says why not (issue 27: 38 → 60 changed nothing)."""

from palace_lab.distill.base import CorpusStats
from palace_lab.distill.rules import RulesDistiller
from palace_lab.experiments.knob_effects import changed_knobs, knob_effect
from palace_lab.model import Exchange

REQUEST = "Why does the connection pool time out after thirty seconds on the staging servers?"
ANSWER = ("The setting pool.max_size is too small; I raised it in config/db.yaml and the "
          "timeouts stopped. TimeoutError: pool exhausted after 30000 ms")


def exchanges(n=4):
    text = f"[user] {REQUEST}\n\n[assistant] {ANSWER}"
    return [Exchange(f"x{i}", "c", 2 * i, 2 * i + 1, REQUEST, text, text, ()) for i in range(n)]


STATS = CorpusStats(n_docs=4, dialogue_mean=60.0)


def test_raising_an_idle_ceiling_changes_no_card_and_says_why():
    effect = knob_effect(RulesDistiller(budget_tokens=60), exchanges(), STATS)
    assert effect.changed == 0 and effect.total == 4
    assert effect.knobs == {"budget_tokens": (38, 60)}
    (reason,) = effect.reasons
    assert "ceiling" in reason and "Mean card budget" in reason


def test_a_knob_that_acts_changes_cards_and_needs_no_reason():
    # (rules:v6 takes a short request whole within its card, so a core budget no longer moves
    # these cores; the context's length still does.)
    effect = knob_effect(RulesDistiller(context_chars=10), exchanges(), STATS)
    assert effect.changed == 4 and effect.reasons == ()


def test_an_idle_share_bound_names_the_palace_share():
    long_palace = CorpusStats(n_docs=4, dialogue_mean=200.0)
    effect = knob_effect(RulesDistiller(max_share=0.3), exchanges(), long_palace)
    assert effect.changed == 0 and "0.190" in effect.reasons[0]  # 38 / 200, inside [0.05, 0.3]


def test_only_knobs_away_from_their_default_are_listed():
    assert changed_knobs(RulesDistiller()) == {}
    assert changed_knobs(RulesDistiller(request_share=0.5)) == {"request_share": (1.0, 0.5)}
