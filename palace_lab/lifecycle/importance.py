"""Importance tagging: each sentence gets an importance and a kind, by stated rules.

Importances: ``critical`` > ``high`` > ``medium`` > ``low``. Kinds: ``decision``, ``fact``,
``preference``, ``context``. The first rule that applies decides (cues are whole words,
case-insensitive; "fact token" means any fact of :mod:`palace_lab.lifecycle.facts`):

=====  ==========  ===========  =========================================================
rule   importance  kind         when
=====  ==========  ===========  =========================================================
1      critical    preference   a standing rule of the person: "I/we (…) always/never",
                                "always/never use/run/commit/log/…", "don't ever", "from now
                                on", "make sure to/we/you/that"
2      critical    decision     a decision cue ("decided", "switched", "rather than",
                                "chose", "going with", "settled on", "opted", "use … instead",
                                "instead of …,") or "because"/"so that" with a decision verb,
                                and a fact token
3      critical    fact         an error that was fixed: an error fact or "bug"/"crash" with
                                a fix cue ("fixed", "root cause", "resolved", "caused by",
                                "the problem was", "works now", "passes now")
4      high        preference   "I prefer", "I like", "I'd rather", "I don't like", "I hate",
                                "please always/never/keep/avoid"
5      high        decision     a decision cue without a fact token, or "let's use/go with",
                                "we'll use", "use … instead"
6      high        fact         a config value (``key=value``, or a set/raise/lower/bump/
                                change verb with a number), or an error (not yet fixed)
7      medium      fact         any other fact token (path, identifier, quantity, version)
8      low         context      everything else (acknowledgements and narration included)
=====  ==========  ===========  =========================================================

Preferences are the person's only (rules 1 and 4 apply to the user's sentences). In
consolidation, critical and high sentences are kept verbatim, medium ones are summarised
(cut to their best window of words), and low ones appear only in weekly digests, as topics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from palace_lab.lifecycle.facts import CONFIG, ERROR, has_fact

IMPORTANCE_ORDER = ("critical", "high", "medium", "low")  # most important first
KINDS = ("decision", "fact", "preference", "context")
WEIGHTS = {"critical": 4, "high": 3, "medium": 2, "low": 1}

_STANDING = re.compile(r"\b(?:i|we)(?: \w+)? (?:always|never)\b|\b(?:always|never) (?:use|run|"
                       r"commit|push|log|write|put|add|call|do|make|store|keep|let|include|"
                       r"touch|change|delete|remove|skip)\b|\b(?:don't|do not) ever\b|"
                       r"\bfrom now on\b|\bmake sure (?:to|we|you|it|that)\b", re.I)
_DECISION = re.compile(r"\b(?:decided|decide to|switched|switch(?:ing)? to|rather than|chose|"
                       r"choose|chosen|going with|go with|went with|settled on|opted|"
                       r"moved? away from|replac(?:e|ed|ing) \S+ with|(?:use|using|used|pick|"
                       r"picked|keep|kept)\b[^.]{0,60}\binstead|instead of\b[^.]{0,60},)", re.I)
_REASONED = re.compile(r"\b(?:because|so that)\b", re.I)
_DECISION_VERB = re.compile(r"\b(?:use|using|used|keep|kept|move|moved|set|switch|drop|"
                            r"dropped|pick|picked|went|make|made|add|added|remove|removed)\b",
                            re.I)
_SOFT_DECISION = re.compile(r"\b(?:let's (?:use|go with|keep|do|switch)|we'll use|we will use|"
                            r"i'll use|use \S+(?: \S+){0,3} instead)\b", re.I)
_FIX = re.compile(r"\b(?:fixed|fixes|root cause|resolved|caused by|the problem was|the issue "
                  r"was|works now|passes now|now passes|no longer)\b", re.I)
_BUG = re.compile(r"\b(?:bug|crash(?:ed|es)?|regression|deadlock|leak)\b", re.I)
_PREFER = re.compile(r"\b(?:i prefer|i'd prefer|i like|i'd rather|i would rather|"
                     r"i don't like|i do not like|i hate|please (?:always|never|keep|avoid))\b",
                     re.I)
_SET_NUMBER = re.compile(r"\b(?:set|sets|setting|raised?|lowered?|bump(?:ed)?|increased?|"
                         r"decreased?|reduced?|changed?|capped?|limit(?:ed)?)\b[^.]*?\d", re.I)


@dataclass(frozen=True)
class Tag:
    """A sentence's importance, its kind and the number of the rule that decided."""

    importance: str
    kind: str
    rule: int

    @property
    def weight(self) -> int:
        return WEIGHTS[self.importance]


@lru_cache(maxsize=1 << 16)
def tag(sentence: str, speaker: str = "user") -> Tag:
    """The importance of one sentence (see the module docstring for the rules).

    Preferences (rules 1 and 4) are the person's: they apply only when ``speaker`` is
    ``"user"``; an agent's "you must restart it" is not a standing rule of the person.
    """
    s = sentence.replace("\u2019", "'")
    facts = has_fact(s)
    person = speaker == "user"
    if person and _STANDING.search(s):
        return Tag("critical", "preference", 1)
    decided = _DECISION.search(s) or (_REASONED.search(s) and _DECISION_VERB.search(s))
    if decided and facts:
        return Tag("critical", "decision", 2)
    error = ERROR.search(s) or _BUG.search(s)
    if error and _FIX.search(s):
        return Tag("critical", "fact", 3)
    if person and _PREFER.search(s):
        return Tag("high", "preference", 4)
    if decided or _SOFT_DECISION.search(s):
        return Tag("high", "decision", 5)
    if CONFIG.search(s) or (_SET_NUMBER.search(s) and facts) or ERROR.search(s):
        return Tag("high", "fact", 6)
    if facts:
        return Tag("medium", "fact", 7)
    return Tag("low", "context", 8)


def at_least(importance: str, floor: str) -> bool:
    """True when ``importance`` is ``floor`` or more important."""
    return IMPORTANCE_ORDER.index(importance) <= IMPORTANCE_ORDER.index(floor)
