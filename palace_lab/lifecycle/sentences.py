"""Sentences in their original words, and the filler a compression may drop.

:func:`split_sentences` cuts prose into sentences without rewording them: whitespace is
collapsed and a leading list or heading marker (``-``, ``*``, ``1.``, ``#``) is removed, nothing
else. Fenced code blocks are returned apart (a summary is not expected to carry code).

Filler (:func:`filler_reason`) is what the memory-compression chapter drops first:

- *greeting/acknowledgement*: a sentence made only of words such as "hi", "thanks", "ok",
  "great", "perfect", "sounds good", "got it", "makes sense", "lgtm" (and punctuation), or a
  bare "thanks for the report"-style thank-you;
- *narration*: the agent announcing its next step rather than saying anything about the work:
  a sentence opening with "Let me", "Now let me", "Let's check/look/see", "I'll (now) check/
  look/read/run/search/start/examine/verify/take a look", "I'm going to check/look/…",
  "Now I need to …".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*```[^\n]*\n.*?(?:^\s*```\s*$|\Z)", re.S | re.M)
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[*])")
_MARKER = re.compile(r"^\s*(?:[-*+•]\s+|\d+[.)]\s+|#{1,6}\s+|>\s*)")
_ACK_WORDS = frozenset(
    "hi hello hey thanks thank you thx ty ok okay k great perfect nice cool awesome sure yes "
    "yep yeah yup no problem good sounds got it makes sense lgtm understood excellent alright "
    "all right fine done wonderful brilliant amazing exactly right gotcha noted cheers much "
    "very so lot a for the that works looks".split())
_ACK_CORE = frozenset("hi hello hey thanks thank thx ty ok okay great perfect nice cool awesome "
                      "sure yes yep yeah yup lgtm understood excellent alright fine gotcha noted "
                      "cheers wonderful brilliant amazing exactly sounds makes got".split())
_NARRATION = re.compile(
    r"^(?:(?:now|next|first|great|perfect|ok|okay|good)[,!.]?\s+)?(?:"
    r"let me\b|let's (?:check|look|see|start|run|read|examine|verify|take a look)\b|"
    r"i'll (?:now )?(?:check|look|read|run|search|start|examine|verify|investigate|explore|"
    r"take a look|have a look|go ahead and (?:check|look|read|run))\b|"
    r"i'm going to (?:check|look|read|run|search|start|examine|verify|investigate|explore)\b|"
    r"i need to (?:check|look|read|see|understand)\b|now i need to\b)", re.I)
_WORD = re.compile(r"[a-z']+")
_THANKS = re.compile(r"^(?:thanks|thank you)(?: so much| a lot)?(?: for (?:the|your|that|this)"
                     r"(?: \w+){1,2})?[.!]*$", re.I)


@dataclass(frozen=True)
class Piece:
    """A sentence (``code=False``) or a fenced code block (``code=True``) of some text."""

    text: str
    code: bool = False


def pieces(text: str) -> list[Piece]:
    """Sentences and code blocks of ``text``, in order."""
    out: list[Piece] = []
    last = 0
    for m in _FENCE.finditer(text):
        out.extend(Piece(s) for s in split_sentences(text[last:m.start()]))
        out.append(Piece(m.group(0).strip(), code=True))
        last = m.end()
    out.extend(Piece(s) for s in split_sentences(text[last:]))
    return out


def split_sentences(text: str) -> list[str]:
    """Prose cut into sentences, each in its original words (see the module docstring)."""
    out = []
    for line in text.splitlines():
        line = _MARKER.sub("", line)
        for s in _BOUNDARY.split(line):
            s = " ".join(s.split())
            if s and any(c.isalnum() for c in s):
                out.append(s)
    return out


def filler_reason(sentence: str) -> str | None:
    """``"greeting/acknowledgement"``, ``"narration"`` or None (see the module docstring)."""
    sentence = sentence.replace("\u2019", "'")
    words = _WORD.findall(sentence.lower())
    if words and len(words) <= 8 and all(w in _ACK_WORDS for w in words) \
            and any(w in _ACK_CORE for w in words):
        return "greeting/acknowledgement"
    if _THANKS.match(sentence.strip()):
        return "greeting/acknowledgement"
    if _NARRATION.match(sentence.strip(" *_`")):
        return "narration"
    return None
