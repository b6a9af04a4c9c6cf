"""Specific facts inside a sentence: what a compression must not lose or change.

A *fact* is a span a person would quote back exactly. Kinds, each found by a regular
expression, never by a model:

- ``path``: a file path (:func:`palace_lab.files.files_touched`);
- ``config``: ``key=value`` (``pool_size=20``, ``--workers=4``); key and value kept apart;
- ``quantity``: a number with its unit (``30 s``, ``128 KiB``, ``95%``); its *key* is the
  nearest content word before it in the same sentence ("timeout" in "a timeout of 30 s");
- ``version``: a name followed by a dotted version (``zod 4.1.5``, ``vitest v3.2.4``);
- ``error``: an error message (``ValueError: …``, ``error[E0502]: …``, ``error TS2307: …``);
- ``identifier``: code names (snake_case, camelCase, CONSTANT_CASE, ``name()``) and short
  backtick spans without spaces.

Decision sentences are the sixth kind; they are recognised by
:mod:`palace_lab.lifecycle.importance` and added by :mod:`palace_lab.lifecycle.validate`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from palace_lab.files import files_touched
from palace_lab.text.words import FACT_STOPWORDS, NAME_WORD

UNITS = (r"ms|µs|us|ns|s|sec|secs|seconds?|minutes?|mins?|h|hrs?|hours?|days?|weeks?|B|KB|kB|"
         r"KiB|MB|MiB|GB|GiB|TB|%|x|tokens|req/s|rps|qps|fps|px|connections|workers|threads|"
         r"rows|items|bytes|lines|files|tests|retries|attempts|requests|notes|accounts|ids")
CONFIG = re.compile(r"(?<![\w.=!<>-])(-{0,2}[A-Za-z_][\w.\-]*)\s?=\s?(?!=)[\"']?([\w.\-/:%]+)")
QUANTITY = re.compile(rf"(?<![\w.])(\d+(?:[.,]\d+)?)\s?({UNITS})(?![\w/])")
VERSION = re.compile(r"(?<![\w./])([A-Za-z@][\w@/\-]*)(?:@\^?|@~|\s+v?|\s+version\s+)"
                     r"(\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?)\b")
ERROR = re.compile(
    r"(?:\b[\w.]*\w(?:Error|Exception)\b:?|\berror\[E\d+\]:?|\berror TS\d+:?|\bERR_[A-Z_]+|"
    r"\bpanicked at\b|\bTraceback\b|\bFATAL\b|\bfatal:)[^\n]{0,110}")
IDENT = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[a-z][a-z0-9]*_[a-z0-9_]+|"
                   r"[A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Za-z_]\w*(?:\.\w+)*\(\))")
BACKTICK = re.compile(r"`([^`\s]{3,60})`")



@dataclass(frozen=True)
class Fact:
    """One specific fact. ``importance`` is that of the sentence it came from."""

    kind: str
    text: str
    key: str = ""
    value: str = ""
    importance: str = "medium"

    def to_dict(self) -> dict:
        out = dict(vars(self))
        out["level"] = out.pop("importance")  # the JSON key stays as it was written before
        return out


def quantity_key(sentence: str, start: int) -> str:
    """The nearest content word before position ``start`` (at most 4 words back)."""
    words = NAME_WORD.findall(sentence[:start])[-4:]
    for word in reversed(words):
        if word.lower() not in FACT_STOPWORDS and not word[0].isdigit():
            return word.lower()
    return ""


@lru_cache(maxsize=1 << 16)
def _spans(sentence: str) -> tuple[tuple[str, str, str, str], ...]:
    out = [("path", p, "", "") for p in files_touched(sentence)]
    paths = {text for _, text, _, _ in out}
    for m in CONFIG.finditer(sentence):
        out.append(("config", m.group(0).strip("\"'"), m.group(1).lstrip("-"), m.group(2)))
    for m in QUANTITY.finditer(sentence):
        out.append(("quantity", m.group(0), quantity_key(sentence, m.start()), m.group(1)))
    for m in VERSION.finditer(sentence):
        out.append(("version", m.group(0), m.group(1).lower(), m.group(2)))
    for m in ERROR.finditer(sentence):
        out.append(("error", m.group(0).strip().rstrip(".,;"), "", ""))
    taken = " ".join(text for _, text, _, _ in out)
    names = [m.group(0) for m in IDENT.finditer(sentence)] + BACKTICK.findall(sentence)
    for name in dict.fromkeys(names):
        if name not in paths and name not in taken and not name.replace(".", "").isdigit():
            out.append(("identifier", name, "", ""))
    return tuple(out)


def find_facts(sentence: str, *, importance: str = "medium") -> list[Fact]:
    """The facts of one sentence, in order of kind (paths first) then position."""
    return [Fact(kind, text, key, value, importance) for kind, text, key, value in _spans(sentence)]


def has_fact(sentence: str) -> bool:
    return bool(_spans(sentence))
