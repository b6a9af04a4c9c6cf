"""Validation finds removed and distorted facts; importance and filler rules; surviving
vocabulary per distiller version."""

from __future__ import annotations

import pytest
from lifecycle_data import build_palace

from palace_lab.distill.rules import RulesDistiller
from palace_lab.lifecycle.importance import tag
from palace_lab.lifecycle.sentences import filler_reason, pieces
from palace_lab.lifecycle.validate import extract_facts, validate
from palace_lab.lifecycle.vocabulary import vocabulary_report

ORIGINAL = ("We decided to set pool_size=20 because the load test exhausted connections. "
            "The timeout is 30 s now. Fixed the ValueError: invalid literal in src/app/config.py. "
            "Upgraded zod 4.1.5 and kept retry_count.")


def statuses(v):
    return {(c.fact.kind, c.fact.text): c.status for c in v.checks}


def test_the_facts_of_a_text():
    facts = {(f.kind, f.text, f.importance) for f in extract_facts(ORIGINAL)}
    assert facts == {
        ("config", "pool_size=20", "critical"),
        ("decision", "We decided to set pool_size=20 because the load test exhausted connections.",
         "critical"),
        ("quantity", "30 s", "medium"),
        ("error", "ValueError: invalid literal in src/app/config.py", "critical"),
        ("path", "src/app/config.py", "critical"),
        ("version", "zod 4.1.5", "medium"),
        ("identifier", "retry_count", "medium"),
    }


def test_a_fact_removed_on_purpose_is_dropped_and_the_rest_preserved():
    compressed = ORIGINAL.replace(" and kept retry_count", "")
    v = validate(ORIGINAL, compressed)
    assert statuses(v)[("identifier", "retry_count")] == "dropped"
    assert [c.status for c in v.checks].count("preserved") == 6
    assert v.score == pytest.approx(6 / 7)
    assert v.weighted == pytest.approx((4 * 4 + 2 * 2) / (4 * 4 + 2 * 3))  # retry_count: medium


def test_changed_numbers_and_versions_are_distorted_not_dropped():
    compressed = ("Decided to set pool_size=10 because the load test exhausted connections. "
                  "The timeout is 60 s now. Upgraded zod 4.1.6.")
    v = validate(ORIGINAL, compressed)
    got = statuses(v)
    assert got[("config", "pool_size=20")] == "distorted"
    assert got[("quantity", "30 s")] == "distorted"
    assert got[("version", "zod 4.1.5")] == "distorted"
    assert got[("decision", ORIGINAL.split(". ")[0] + ".")] == "distorted"
    assert got[("path", "src/app/config.py")] == "dropped"
    found = {c.fact.text: c.found for c in v.checks}
    assert found["pool_size=20"] == "pool_size 10" and found["30 s"] == "60 s"
    assert v.score == 0.0 and v.to_dict()["distorted"] == 4


def test_a_changed_value_the_original_also_has_is_dropped_not_distorted():
    original = "Set pool_size=20 now. Earlier pool_size=10 failed."
    v = validate(original, "Earlier pool_size=10 failed.")
    assert statuses(v)[("config", "pool_size=20")] == "dropped"
    facts = extract_facts(original)
    assert statuses(validate(facts, "pool_size=10"))[("config", "pool_size=20")] == "distorted"


def test_a_near_identifier_is_distorted_and_a_short_form_is_not():
    assert validate("call `worker_v2` once", "call worker_v3 once").checks[0].status == "distorted"
    assert validate("call `retry_count` once", "call retry_counts once").checks[0].status == "dropped"
    assert validate("the file src/app/config.py", "see config.py").checks[0].status == "preserved"
    assert validate("nothing specific here", "whatever").score == 1.0


@pytest.mark.parametrize("sentence,speaker,expected", [
    ("I always run ruff before I commit.", "user", ("critical", "preference", 1)),
    ("We switched to `asyncpg` because `psycopg2` blocked the loop.", "agent",
     ("critical", "decision", 2)),
    ("We switched to asyncpg because psycopg2 blocked the loop.", "agent", ("high", "decision", 5)),
    ("Fixed the KeyError: 'user_id' in the fixture.", "agent", ("critical", "fact", 3)),
    ("I prefer small commits.", "user", ("high", "preference", 4)),
    ("I prefer small commits.", "agent", ("low", "context", 8)),
    ("Let's use zod for the schemas.", "user", ("high", "decision", 5)),
    ("Set the timeout to 30 s.", "agent", ("high", "fact", 6)),
    ("The pool lives in src/db/pool.py.", "agent", ("medium", "fact", 7)),
    ("Looks fine to me.", "user", ("low", "context", 8)),
])
def test_importance_rules(sentence, speaker, expected):
    t = tag(sentence, speaker)
    assert (t.importance, t.kind, t.rule) == expected


@pytest.mark.parametrize("sentence,reason", [
    ("Thanks!", "greeting/acknowledgement"), ("ok, sounds good", "greeting/acknowledgement"),
    ("Thank you for the report.", "greeting/acknowledgement"),
    ("Let me check the pool settings.", "narration"), ("Now I'll run the tests.", "narration"),
    ("Perfect! Let me look at src/db.py.", "narration"),
    ("I'll raise pool_size to 20.", None), ("ok so the pool is exhausted at 10", None),
])
def test_filler(sentence, reason):
    assert filler_reason(sentence) == reason


def test_sentences_keep_their_words_and_code_stands_apart():
    parts = pieces("- First `a_b` here. Second one!\n```py\nx = 1\n```\n# Done now")
    assert [(p.text, p.code) for p in parts] == [
        ("First `a_b` here.", False), ("Second one!", False), ("```py\nx = 1\n```", True),
        ("Done now", False)]


def test_surviving_vocabulary_per_distiller_version(tmp_path):
    with build_palace(tmp_path / "p.db", days=3, per_day=2) as palace:
        rows = vocabulary_report(palace)
    assert [r["distiller"] for r in rows] == [RulesDistiller().version] and rows[0]["cards"] == 6
    assert rows[0]["term_rate"] >= 0.95
    assert 0.0 <= rows[0]["fact_rate"] <= 1.0
