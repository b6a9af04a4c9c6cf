"""Content words: whether a text says anything about its topic.

A word carries content when it is not a function word (:data:`~palace_lab.text.words.STOPWORDS`),
a generic word (:data:`GENERIC`: "thing", "way", "today") or an empty word (:data:`EMPTY_WORDS`:
"hi", "continue", "ok"); a run of CJK characters counts one word per two characters. Segmentation
uses it to leave an unanswered "continue" inside the exchange before it, and the distiller to
keep cores and their openings contentful, so both steps read it from here.
"""

from __future__ import annotations

import re

from palace_lab.text.words import PROSE_WORD, STOPWORDS

CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")

GENERIC = frozenset(
    """
    thing things something anything everything stuff way ways part parts kind lot lots bit
    point idea ideas case cases place work works working worked time times today yesterday
    actually really maybe probably basically fair enough understood sounds looks seems think
    know mean said says say tell told show shows shown list give gave take took keep kept
    better best worse worst big small large little long short high low open close closed
    current currently previous next last latest early later line lines end start step steps
    focused visible weak strong simple clear different similar same whole full main entire
    """.split()
)


# Words that make no request on their own: greetings, go-aheads, bare verbs of agreement.
EMPTY_WORDS = frozenset(
    """
    hi hello hey thanks thank ok okay continue proceed go ahead yes yeah yep no nope sure
    please implement fix do done next else more again retry same following above below
    lgtm cool nice awesome perfect wow great good fine alright proceeding carry keep going
    """.split())

_NOT_CONTENT = STOPWORDS | GENERIC | EMPTY_WORDS  # built once: read for every word


def content_words(text: str) -> int:
    """How many words of ``text`` carry content: not a function, filler or generic word; a run
    of CJK characters counts one word per two characters."""
    n = 0
    for word in PROSE_WORD.findall(text.lower()):
        cjk = len(CJK.findall(word))
        if cjk:
            n += max(1, cjk // 2)
        elif len(word) > 1 and word.strip("'’-./") not in _NOT_CONTENT:
            n += 1
    return n


def is_content_free(part: str) -> bool:
    """A part that says nothing about its topic: fewer than two content words."""
    return content_words(part) < 2
