"""Segmentation: what opens an exchange, and what joins the one before."""

from __future__ import annotations

from palace_lab.ingest.segment import segment, unanswered
from palace_lab.model import Conversation, Message


def conversation(*turns: tuple[str, str]) -> Conversation:
    messages = tuple(Message(conversation_id="c", position=i, role=role, text=text,
                             is_request=role == "user", source_key=f"k{i}")
                     for i, (role, text) in enumerate(turns))
    return Conversation(conversation_id="c", source_format="codex", messages=messages)


def test_requests_without_content_that_nothing_answers_join_the_exchange_before():
    # Codex: the person typed "pause", then "OK, continue" twice before the agent went on.
    conv = conversation(("user", "add backoff to reconnect in src/ws.ts"),
                        ("assistant", "Added exponential backoff."),
                        ("user", "pause"), ("user", "OK, continue"), ("user", "OK, continue"),
                        ("assistant", "Wrote the retry test in tests/ws.test.ts."),
                        ("user", "continue"))  # the session never answered it
    first, second = segment(conv)
    assert unanswered(conv.messages) == {2, 3, 6}
    assert first.request == "add backoff to reconnect in src/ws.ts"
    assert "[user] pause" in first.verbatim and first.verbatim.count("OK, continue") == 1
    assert second.request == "OK, continue"  # answered: it opens the next exchange
    assert second.verbatim.endswith("[user] continue")  # kept, never lost


def test_a_request_with_content_opens_its_exchange_even_unanswered():
    conv = conversation(("user", "rename quantize() in money.py"), ("user", "fix the flaky login test"),
                        ("assistant", "Fixed it."))
    assert [e.request for e in segment(conv)] == ["rename quantize() in money.py",
                                                  "fix the flaky login test"]


def test_the_first_request_always_opens_one():
    conv = conversation(("user", "hi"))
    assert [e.request for e in segment(conv)] == ["hi"]
