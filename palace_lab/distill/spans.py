"""Token costs: what the words of a card cost in its budget.

A card's searchable text has a budget in *tokens* (cl100k_base, as :mod:`palace_lab.budget`
counts it), so words are costed in tokens, not characters: an identifier such as
``splitMarkdownPluginFast`` costs four tokens, a word such as ``timeout`` one. The cost of a
word is that of the word with its leading space, which is how the encoder's pre-tokeniser cuts
running text, so the sum over a run of words is its token count up to a token at its start.
"""

from __future__ import annotations

from functools import lru_cache

_COSTS: dict[str, int] = {}


@lru_cache(maxsize=1)
def _encoding():
    from palace_lab.tokens import get_encoding

    return get_encoding("cl100k_base")


def word_cost(word: str) -> int:
    """Tokens of `` word`` (the word as it runs in text, after a space)."""
    cost = _COSTS.get(word)
    if cost is None:
        cost = _COSTS[word] = len(_encoding().encode_ordinary(" " + word))
    return cost


def text_cost(text: str) -> int:
    """Exact tokens of ``text``."""
    return len(_encoding().encode_ordinary(text)) if text else 0


def words_cost(words: list[str]) -> int:
    return sum(word_cost(w) for w in words)
