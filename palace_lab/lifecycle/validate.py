"""Compression validation: which facts of the original a compressed text kept, lost or changed.

:func:`extract_facts` lists the specific facts of the original (paths, identifiers, config
values, numbers with units, versions, error messages — see :mod:`palace_lab.lifecycle.facts` —
and decision sentences, see :mod:`palace_lab.lifecycle.importance`); fenced code is left out
unless asked for. :func:`validate` checks each against the compressed text:

- *preserved*: found as written (an error message by its first five words; a path also by
  its file name when that name is unique among the original's paths; a decision or error
  sentence when at least ``SENTENCE_MATCH`` of its terms occur in one sentence of the
  compressed text, with its numbers unchanged);
- *distorted*: a near match with a changed number or identifier — the same config key or
  version name with another value (``pool_size=20`` vs ``pool_size=10``), the same key and
  unit with another number (``timeout 30 s`` vs ``timeout 60 s``), an identifier or path of
  similarity ≥ ``NEAR`` that is neither equal nor a shorter/longer form of it
  (``worker_v2`` vs ``worker_v3``), a matched sentence whose numbers differ — provided the
  original does not contain the changed value itself (then it is another true fact, and
  the fact counts as dropped);
- *dropped*: otherwise.

Scores: ``score = preserved / facts`` (1.0 when the original has no facts), and
``weighted = Σ w·[preserved] / Σ w`` with w = 4, 3, 2, 1 for a fact from a critical, high,
medium or low sentence. A distorted fact counts as not preserved in both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from palace_lab.text.words import FACT_TERM, NUMBER, RUN
from palace_lab.lifecycle.facts import CONFIG, IDENT, QUANTITY, VERSION, Fact, find_facts, \
    quantity_key
from palace_lab.lifecycle.importance import WEIGHTS, tag
from palace_lab.lifecycle.sentences import pieces, split_sentences

SENTENCE_MATCH = 0.6
NEAR = 0.85
_TERM = FACT_TERM
_NUMBER = re.compile(rf"(?<![\w.]){NUMBER}")
_SMALL = frozenset("the a an of to in on at by for with from and or is are was be it this that "
                   "we i you they as so but not no".split())


@dataclass(frozen=True)
class FactCheck:
    fact: Fact
    status: str  # preserved | dropped | distorted
    found: str = ""  # what the compressed text has instead (distorted) or where (preserved)

    def to_dict(self) -> dict:
        return {**self.fact.to_dict(), "status": self.status, "found": self.found}


@dataclass(frozen=True)
class Validation:
    checks: tuple[FactCheck, ...] = field(default_factory=tuple)

    def _count(self, status: str) -> int:
        return sum(1 for c in self.checks if c.status == status)

    @property
    def score(self) -> float:
        """preserved / facts (1.0 when there is nothing to keep)."""
        return self._count("preserved") / len(self.checks) if self.checks else 1.0

    @property
    def weighted(self) -> float:
        total = sum(WEIGHTS[c.fact.importance] for c in self.checks)
        kept = sum(WEIGHTS[c.fact.importance] for c in self.checks if c.status == "preserved")
        return kept / total if total else 1.0

    def by_status(self, status: str) -> list[FactCheck]:
        return [c for c in self.checks if c.status == status]

    def to_dict(self) -> dict:
        return {"facts": len(self.checks), "preserved": self._count("preserved"),
                "dropped": self._count("dropped"), "distorted": self._count("distorted"),
                "score": round(self.score, 4), "weighted": round(self.weighted, 4),
                "checks": [c.to_dict() for c in self.checks]}


def extract_facts(text: str, *, speaker: str = "user", include_code: bool = False) -> list[Fact]:
    """The facts of ``text``, each once (the most important occurrence wins)."""
    best: dict[tuple[str, str], Fact] = {}
    for piece in pieces(text):
        if piece.code and not include_code:
            continue
        for sentence in split_sentences(piece.text) if piece.code else [piece.text]:
            t = tag(sentence, speaker)
            found = find_facts(sentence, importance=t.importance)
            if t.kind == "decision":
                found.append(Fact("decision", sentence, importance=t.importance))
            for f in found:
                key = (f.kind, f.text)
                if key not in best or WEIGHTS[f.importance] > WEIGHTS[best[key].importance]:
                    best[key] = f
    return list(best.values())


def _terms(text: str) -> set[str]:
    return {t.lower() for t in _TERM.findall(text) if t.lower() not in _SMALL}


class _Source:
    """The original text (when known), to tell a distortion from another true fact."""

    def __init__(self, text: str | None):
        self.text = " ".join(text.replace("`", "").split()) if text else ""

    def has(self, span: str) -> bool:
        return bool(self.text) and re.search(rf"(?<![\w.]){re.escape(span)}(?![\w])",
                                             self.text) is not None

    def pair(self, key: str, value: str) -> bool:
        return bool(self.text) and re.search(rf"{re.escape(key)}\W{{1,4}}{re.escape(value)}(?![\w.])",
                                             self.text, re.I) is not None


class _Compressed:
    """The compressed text, indexed once for every fact check."""

    def __init__(self, text: str):
        self.text = " ".join(text.replace("`", "").split())
        self.sentences = [(s, _terms(s)) for line in re.split(r"\n|; ", text)
                          for s in split_sentences(line)]
        self.idents = set(IDENT.findall(self.text)) | set(RUN.findall(self.text))
        self.configs = [(m.group(1).lstrip("-"), m.group(2)) for m in CONFIG.finditer(self.text)]
        self.quantities = [(quantity_key(self.text, m.start()), m.group(1), m.group(2), m.group(0))
                           for m in QUANTITY.finditer(self.text)]
        self.versions = [(m.group(1).lower(), m.group(2)) for m in VERSION.finditer(self.text)]

    def has(self, span: str) -> bool:
        return re.search(rf"(?<![\w]){re.escape(span)}(?![\w])", self.text) is not None

    def near(self, name: str, source: _Source) -> str:
        if len(name) < 5:
            return ""
        for other in self.idents:
            if abs(len(other) - len(name)) > 2 or len(other) < 5 or other in name or name in other:
                continue  # a shorter or longer form of the same name is not a distortion
            if source.has(other.rstrip(".")):
                continue  # another name the original has: not a changed one
            matcher = SequenceMatcher(None, name, other)
            if matcher.real_quick_ratio() >= NEAR and matcher.quick_ratio() >= NEAR \
                    and matcher.ratio() >= NEAR:
                return other
        return ""

    def best_sentence(self, text: str) -> tuple[float, str]:
        wanted = _terms(text)
        if not wanted or not self.sentences:
            return 0.0, ""
        s, have = max(self.sentences, key=lambda st: len(wanted & st[1]))
        return len(wanted & have) / len(wanted), s


def _check_sentence(fact: Fact, c: _Compressed, source: _Source) -> FactCheck:
    share, sentence = c.best_sentence(fact.text)
    if share < SENTENCE_MATCH:
        return FactCheck(fact, "dropped")
    mine, theirs = set(_NUMBER.findall(fact.text)), set(_NUMBER.findall(sentence))
    if mine and theirs and not mine <= theirs:
        if all(source.has(n) for n in theirs - mine):
            return FactCheck(fact, "dropped")  # another sentence of the original, unchanged
        return FactCheck(fact, "distorted", sentence)
    return FactCheck(fact, "preserved", sentence)


def _check_value(fact: Fact, pairs: list[tuple[str, str]], c: _Compressed,
                 source: _Source) -> FactCheck:
    values = [v for k, v in pairs if k.lower() == fact.key.lower()]
    if fact.value in values or c.has(fact.text):
        return FactCheck(fact, "preserved", fact.text)
    changed = [v for v in values if not source.pair(fact.key, v)]
    if changed:
        return FactCheck(fact, "distorted", f"{fact.key} {changed[0]}")
    return FactCheck(fact, "dropped")


def _check_quantity(fact: Fact, c: _Compressed, source: _Source) -> FactCheck:
    if c.has(fact.text) or c.has(fact.text.replace(" ", "")):
        return FactCheck(fact, "preserved", fact.text)
    unit = QUANTITY.fullmatch(fact.text).group(2)
    other = next((q for q in c.quantities if fact.key and q[0] == fact.key and q[2] == unit
                  and not (source.has(q[3]) or source.has(f"{q[1]} {q[2]}")
                           or source.has(f"{q[1]}{q[2]}"))), None)
    return FactCheck(fact, "distorted", other[3]) if other else FactCheck(fact, "dropped")


def check_fact(fact: Fact, c: _Compressed, unique_names: set[str],
               source: _Source | None = None) -> FactCheck:
    source = source or _Source(None)
    if fact.kind in ("decision", "error"):
        head = " ".join(fact.text.replace("`", "").split()[:5])
        if fact.kind == "error" and c.has(head):
            return FactCheck(fact, "preserved", head)
        return _check_sentence(fact, c, source)
    if fact.kind == "config":
        return _check_value(fact, c.configs, c, source)
    if fact.kind == "version":
        return _check_value(fact, c.versions, c, source)
    if fact.kind == "quantity":
        return _check_quantity(fact, c, source)
    if c.has(fact.text):
        return FactCheck(fact, "preserved", fact.text)
    name = fact.text.rsplit("/", 1)[-1]
    if fact.kind == "path" and name in unique_names and c.has(name):
        return FactCheck(fact, "preserved", name)
    near = c.near(fact.text, source)
    return FactCheck(fact, "distorted", near) if near else FactCheck(fact, "dropped")


def validate(original: str | list[Fact], compressed: str, *, original_text: str | None = None,
             speaker: str = "user", include_code: bool = False) -> Validation:
    """Check every fact of ``original`` (a text, or facts already extracted) in ``compressed``.

    ``original_text`` (implied when ``original`` is a text) lets a near match that is itself
    a fact of the original count as dropped, not distorted.
    """
    if isinstance(original, str):
        facts, original_text = extract_facts(original, speaker=speaker,
                                             include_code=include_code), original
    else:
        facts = original
    names = [f.text.rsplit("/", 1)[-1] for f in facts if f.kind == "path"]
    unique = {n for n in names if names.count(n) == 1}
    index, source = _Compressed(compressed), _Source(original_text)
    return Validation(tuple(check_fact(f, index, unique, source) for f in facts))
