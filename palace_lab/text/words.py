"""What a word is, and which words say nothing, for every step that reads words out of text.

Patterns and stop-word lists are named by use. They differ on purpose, and each is frozen by
what depends on it: the BM25 list and pattern are part of the index (a change moves every
retrieval figure and needs a new index cache key), the card list shapes every rules card (a
change moves card bytes and needs a new distiller version), the request list shapes generated
known-item query sets (a change makes a seed give other queries). Merging them would change
behaviour, so they stay several, side by side, each with the reason it differs.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import lru_cache
from pathlib import Path

# -- what a word is --------------------------------------------------------------------------

# Any run of letters, digits and underscores: the BM25 tokenizer's words (punctuation, even a
# hyphen, separates: a query is words, never a filter language) and known-item content words.
WORD_RUN = re.compile(r"\w+")
# A term of the distillers' salience: a word, identifier, dotted name or path, starting with a
# letter or _ and ending with a word character; a number keeps its unit (30s, 95%).
WORD = r"[A-Za-z_][\w\-./]*\w"
NUMBER = r"\d+(?:\.\d+)?"
TERM = re.compile(rf"{WORD}|{NUMBER}[a-zA-Z%]*")
WORD_TERM = re.compile(WORD)  # words only (the memory units' vocabulary)
FACT_TERM = re.compile(rf"{WORD}|{NUMBER}")  # words and bare numbers (fact checks)
LOOSE_TERM = re.compile(r"[a-z0-9_][\w\-./]*", re.I)  # any run from a letter, digit or _ (pack)
RUN = re.compile(r"[\w./\-]+")  # any run of word characters, dots, slashes, dashes
# A query word as a person typed it: paths, dotted names, ``a:b`` and apostrophes stay whole,
# because it is looked up as a substring of stored text ("no exchange contains …").
QUERY_WORD = re.compile(r"\w[\w./:'-]*\w|\w", re.UNICODE)
# A word of prose: starts with a letter of any script (not a digit), may carry ' ’ - . /
# inside; counts the content of a sentence.
PROSE_WORD = re.compile(r"[^\W\d_][\w'’\-./]*")
# A name that may label a quantity ("timeout of 30 s"): ASCII letters, _ and -.
NAME_WORD = re.compile(r"[A-Za-z_][\w\-]*")

# -- which words say nothing -----------------------------------------------------------------

# The distillers' list (salience, keywords, context, clause content): function words and the
# filler of a chat with an agent (thanks, okay, check, run, file), which a card must never
# name as its subject. Long, because a card has room for only a few words.
STOPWORDS = frozenset(
    """
    a an the and or but if then else of to in on at by for with from into onto as is are was
    were be been being it its this that these those there here i me my we our you your he she
    they them their what which who whom when where why how all any both each few more most
    other some such no nor not only own same so than too very can will just don should now
    do does did done have has had having let lets let's ok okay yes yeah please thanks thank
    also about would could might may must shall get got go going make made use used using
    one two new like want need see look check try run file files code now still again first
    i'll i'm we'll it's that's there's here's also just sure great good well right up out
    over under after before while because into via per without within
    """.split()
)
# Function words beyond the short list above (our own list; importing scikit-learn's would
# cost seconds at start-up for a set of words).
STOPWORDS = STOPWORDS | frozenset(
    """
    above across afterwards against almost alone along already although always am among
    amongst amount another anyhow anyone anyway anywhere around back became become becomes
    becoming beforehand behind below beside besides between beyond cannot co con couldn
    describe detail down due during either elsewhere empty enough etc even ever every
    everyone everywhere except fifteen fifty fill find fire five former formerly forty found
    four front further give hasn hence hereafter hereby herein hereupon hers herself himself
    his however hundred ie inc indeed interest itself keep latter latterly least less ltd
    many meanwhile mine moreover mostly move much myself name namely neither never
    nevertheless nine nobody none noone nothing nowhere off often once onto others otherwise
    ours ourselves part perhaps put rather re seem seemed seeming seems serious several she
    side since sincere six sixty somehow someone something sometime sometimes somewhere
    take ten themselves thence thereafter thereby therefore therein thereupon thick thin
    third though three through throughout thru thus together top toward towards twelve
    twenty un until upon us whatever whence whenever whereafter whereas whereby wherein
    whereupon wherever whether whither whoever whole whose within wouldn yet yours yourself
    yourselves doesn didn isn wasn weren aren won shouldn haven hadn ll ve
    """.split()
)
# Known-item requests: a short list, so a bag of a request's words keeps its content verbs
# ("fix", "check"); it also drops the apostrophe-less "dont"/"im" people type. It decides
# which queries a seed generates: changing it changes every generated query set.
REQUEST_STOPWORDS = frozenset("""
a an the and or but if then of to in on at by for with from into as is are was were be been it
its this that these those there here i me my we our you your they them what which who when
where why how all any can will just do does did have has had not no so than too very would
could should may might must please thanks also about like want need make get use using let
lets im it's i'm dont don't
""".split())
# A search query's absent-word notice: only words with no meaning of their own, so every word
# a person chose ("check", "file", "run") is looked up and reported when no exchange has it.
QUERY_STOPWORDS = frozenset(
    "a an and are as at be but by can did do does for from had has have how i in into is it its "
    "me my not of on or our so that the their then there this to was we were what when where "
    "which who why will with you your".split())
# Naming a quantity: the words between a name and its number ("timeout *of* 30 s", "*set* to").
FACT_STOPWORDS = frozenset(
    "a an the of to in on at by for with from and or is are was be set it this "
    "that as into than then now about around up down over per each every".split())


@lru_cache(maxsize=1)
def bm25_stopwords() -> frozenset[str]:
    """The BM25 index's list: bm25s' English stop words (the list the retrieval figures were
    measured with). Read from bm25s' ``stopwords.py`` without running ``bm25s/__init__``
    (which imports numba and scipy: ~0.6 s a one-shot search would pay for a word list)."""
    if "bm25s.stopwords" in sys.modules:
        return frozenset(sys.modules["bm25s.stopwords"].STOPWORDS_EN)
    package = importlib.util.find_spec("bm25s")  # locates the package, does not import it
    if package is None or not package.submodule_search_locations:
        from bm25s import stopwords  # pragma: no cover - an unusual install

        return frozenset(stopwords.STOPWORDS_EN)
    path = Path(list(package.submodule_search_locations)[0]) / "stopwords.py"
    spec = importlib.util.spec_from_file_location("palace_lab._bm25s_stopwords", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return frozenset(module.STOPWORDS_EN)
