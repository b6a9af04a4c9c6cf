"""Sentences and clauses: the units a readable ``exchange_core`` is made of, and the check that a
core is made of them.

A core is readable when every part of it is a *whole unit* of its exchange: a sentence, or a
run of a sentence's clauses that starts and ends at a clause boundary, with nothing dropped
inside. Both the distiller (which chooses units) and the card-quality benchmark (which checks
them) read text through :func:`prose`, so the two agree on what a boundary is:

- the text a person reads: the ``[user]``/``[assistant]`` labels of the verbatim rendering,
  code blocks, inline markup (backticks, ``**``), list markers,
  heading and quote marks are removed; spacing inside a line is folded; line breaks stay;
- a *sentence* ends at ``.``, ``!`` or ``?`` followed by a space and a capital, digit, quote or
  bracket, at a line break, or at a CJK full stop;
- a *clause boundary* inside a sentence is ``;``, ``:``, ``,`` or a dash between spaces
  (``—``, ``–``, `` - ``), each followed by a space.

A part of a core is compared with the source case- and spacing-insensitively; a period the
distiller appended to a clause is not part of the comparison.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


_CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.S)
_LINE_MARKUP = re.compile(r"^[ \t]*(?:(?:[#>]+|[-*+]|\d+[.)])[ \t]+)+")
_INLINE_MARKUP = re.compile(r"`|\*\*|__(?=\w)|(?<=\w)__|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)")
_SPACES = re.compile(r"[ \t\u00a0]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[^\W_]|[`\"'(\[])|(?<=[。！？])")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|mr|mrs|ms|dr|st|no|fig|eq)|"
                           r"(?<!\w)\w)\.$", re.I)
_CLAUSE_END = re.compile(r"(?:[;:,]|\s[—–-])\s+")
_TRAILING = " ,;:—–-"
LABEL = re.compile(r"^\[(?:user|assistant|system|tool call[^\]\n]*|tool result)\] ")
_MESSAGE_START = re.compile(r"\n\n(?=\[(?:user|assistant|system|tool call[^\]\n]*|tool result)\] )")
_PART_END = re.compile(r"(?<=[.!?。！？])\s+")


def prose(text: str) -> str:
    """``text`` as a person reads it (the module docstring): markup gone, lines kept."""
    # Fences pair up inside one message: a tool output with an odd fence must not swallow
    # the messages after it.
    text = "\n".join(_CODE_BLOCK.sub("\n", m) for m in _MESSAGE_START.split(text))
    lines = (_SPACES.sub(" ", _INLINE_MARKUP.sub("", _LINE_MARKUP.sub("", LABEL.sub("", line))))
             .strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def sentences(text: str) -> list[str]:
    """The sentences of ``text``'s prose, in order."""
    return [s for line in prose(text).splitlines() for s in _split(line)]


def _split(line: str, ends: re.Pattern = _SENTENCE_END) -> list[str]:
    """``line``'s sentences, split at ``ends``; a split after an abbreviation or an initial
    ("e.g. the", "J. Smith") is no sentence end."""
    out: list[str] = []
    for piece in (p.strip() for p in ends.split(line)):
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


@dataclass(frozen=True)
class Unit:
    """A whole sentence, or a run of its clauses from ``first`` to ``last`` (0-based)."""

    text: str
    sentence: int
    first: int
    last: int
    whole_sentence: bool


def clause_spans(sentence: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each clause of ``sentence``; ``end`` excludes the boundary mark."""
    spans, start = [], 0
    for m in _CLAUSE_END.finditer(sentence):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(sentence)))
    return [(a, b) for a, b in spans if sentence[a:b].strip(_TRAILING)]


def units(sentence_list: list[str], *, max_clauses: int = 12) -> list[Unit]:
    """Every whole sentence and every run of consecutive clauses of each sentence, but a run
    that leads into a colon ("Here is what changed:", "run:"): it announces, it says nothing."""
    out = []
    for i, sentence in enumerate(sentence_list):
        spans = clause_spans(sentence)[:max_clauses]
        for a in range(len(spans)):
            for b in range(a, len(spans)):
                if sentence[spans[b][1]:].lstrip().startswith(":"):
                    continue
                text = sentence[spans[a][0]:spans[b][1]].strip().rstrip(_TRAILING)
                whole = a == 0 and b == len(spans) - 1
                out.append(Unit(sentence if whole else text, i, a, b, whole))
    return out


def ends_short(text: str) -> bool:
    """``text`` ends on an abbreviation or an initial ("e.g.", "J."), or would once a core's
    period is added ("Pool pool a," reads "Pool pool a."): not a sentence's end."""
    return bool(_ABBREVIATION.search(text.rstrip(_TRAILING)) or _INITIAL.search(as_part(text)))


_INITIAL = re.compile(r"(?<!\w)[^\W\d_]\.$")  # one letter and a period: read as "J."


def as_part(text: str) -> str:
    """A unit as it stands in a core: ending with terminal punctuation (a period added)."""
    text = text.strip().rstrip(_TRAILING)
    return text if not text or text[-1] in ".!?。！？" else text + "."


def balanced(text: str) -> bool:
    """Brackets and double quotes that open in ``text`` close in it (a clause cut out of a
    parenthesis reads as a fragment)."""
    return all(text.count(a) == text.count(b) for a, b in ("()", "[]", "{}")) and \
        text.count('"') % 2 == 0


def _fold(text: str) -> str:
    return " ".join(text.lower().split())


def _starts_at_boundary(before: str) -> bool:
    before = before.rstrip()
    return not before or before[-1] in ".!?;:,—–-([]\"'。！？" or before.endswith("...")


def _ends_at_boundary(after: str, part: str) -> bool:
    after = after.lstrip()
    return (not after or after[0] in ".!?;:,—–-)]\"'。！？…" or part[-1:] in ".!?。！？")


def is_whole(part: str, source: str) -> bool:
    """``part`` stands in ``source``'s prose as a whole sentence or clause run (module docstring)."""
    bare = part.strip()
    if bare.endswith(".") and not bare.endswith("..."):
        bare = bare[:-1]
    needle = _fold(bare)
    if not needle:
        return False
    for line in prose(source).splitlines():
        hay = _fold(line)
        at = hay.find(needle)
        while at >= 0:
            if (_starts_at_boundary(hay[:at])
                    and _ends_at_boundary(hay[at + len(needle):], needle)):
                return True
            at = hay.find(needle, at + 1)
    return False


def core_parts(core: str) -> list[str]:
    """The parts of a core: its sentences (a core is one or two units joined by a space, so
    any end mark before a space ends a part, whatever follows it)."""
    return _split(" ".join(core.split()), _PART_END)


