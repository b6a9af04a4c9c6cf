"""The request opening: the person's words only, redacted before it is cut, one line."""

from __future__ import annotations

from redaction_table import SECRET_ROWS

from palace_lab.model import Exchange
from palace_lab.request import OPENING_CHARS, person_request, request_opening


def exchange(request: str) -> Exchange:
    return Exchange("x0", "c0", 0, 1, request, request, request)


def test_injected_blocks_are_removed_even_from_a_request_stored_with_them():
    stored = ("<ide_opened_file>The user opened the file /r/src/app.py in the IDE.</ide_opened_file>"
              "<ide_selection>def f(): pass</ide_selection>\nwhy does f   return\nNone?")
    assert request_opening(exchange(stored)) == "why does f return None?"


def test_a_slash_command_reads_as_typed():
    typed = ("<command-message>review is running…</command-message>\n"
             "<command-name>/review</command-name>\n<command-args>PR 12</command-args>")
    assert person_request(typed) == "/review PR 12"


def test_cut_at_the_limit_on_one_line():
    opening = request_opening(exchange("fix the flaky test\n" + "word " * 100))
    assert len(opening) == OPENING_CHARS and opening.endswith("…") and "\n" not in opening


def test_every_secret_kind_is_redacted_even_where_the_cut_falls_inside_it():
    for kind, secret, line in SECRET_ROWS:
        request = "x" * (OPENING_CHARS - 20) + " " + line.format(s=secret) + " thanks"
        opening = request_opening(exchange(request))
        pieces = {secret[i:i + 10] for i in range(len(secret) - 9)}
        assert not [p for p in pieces if p in opening], kind  # no piece of it shows


def test_no_request_no_opening():
    assert request_opening(exchange("")) == ""
