"""The redaction table both ways: every secret kind removed, every look-alike left byte for byte."""

from __future__ import annotations

import pytest

from palace_lab.redact import RULES, redact, redact_with_known, secrets_in, shannon_bits
from redaction_table import LOOK_ALIKES, PYPI, SECRET_ROWS, TELEGRAM, fake


def test_the_table_is_large_enough_and_covers_every_rule():
    kinds = {kind for kind, _, _ in SECRET_ROWS}
    assert len(kinds) >= 30 and len(LOOK_ALIKES) >= 30
    from test_redact import SECRETS

    assert {r.kind for r in RULES} <= kinds | {kind for kind, _, _ in SECRETS}


@pytest.mark.parametrize("kind, secret, line", SECRET_ROWS,
                         ids=[f"{k}:{line[:16]}" for k, _, line in SECRET_ROWS])
def test_a_secret_is_removed_as_its_kind(kind, secret, line):
    text = "before\n" + line.format(s=secret) + "\nafter"
    result = redact(text)
    assert secret.strip("'\"") not in result.text
    assert result.counts == {kind: 1}
    assert redact(result.text).text == result.text


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=[t[:24] for t in LOOK_ALIKES])
def test_a_look_alike_survives(text):
    result = redact(text)
    assert result.text == text, result.counts


def test_a_fragment_of_a_known_secret_is_removed_from_a_card_field():
    exchange = f"I pasted {PYPI} and the bot {TELEGRAM} by mistake"
    known = secrets_in(exchange)
    assert set(known.values()) == {"pypi_token", "telegram_bot_token"}
    tail = TELEGRAM.split(":", 1)[1]
    field = f"token {PYPI[5:40]} and secret part {tail}, file src/app.py"
    cleaned = redact_with_known(field, known).text
    assert PYPI[5:40] not in cleaned and tail not in cleaned
    assert cleaned.endswith("file src/app.py")


def test_entropy_is_in_bits_per_character():
    assert shannon_bits("aaaa") == 0.0
    assert shannon_bits("abcd") == 2.0
    assert shannon_bits(fake(64)) > 4.5
