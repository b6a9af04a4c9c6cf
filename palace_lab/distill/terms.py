"""Terms and salience: which words of an exchange are its surviving vocabulary.

A *term* is a lower-cased word, identifier, dotted name or path as it appears in text. The
palace-wide document frequency of each term (in how many exchanges it occurs) tells the
distinctive terms of one exchange from those common to all: ``idf = log((N + 1) / (df + 1)) + 1``
(the smoothed inverse document frequency used by scikit-learn's TfidfVectorizer).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

from palace_lab.distill.base import CorpusStats

# What a term looks like, for every module that reads terms out of text (one home, named by use):
WORD = r"[A-Za-z_][\w\-./]*\w"  # a word, identifier, dotted name or path: letter/_ ... word char
NUMBER = r"\d+(?:\.\d+)?"
TERM = re.compile(rf"{WORD}|{NUMBER}[a-zA-Z%]*")  # salience: a number keeps its unit (30s, 95%)
WORD_TERM = re.compile(WORD)  # words only (the memory units' vocabulary)
FACT_TERM = re.compile(rf"{WORD}|{NUMBER}")  # words and bare numbers (fact checks)
LOOSE_TERM = re.compile(r"[a-z0-9_][\w\-./]*", re.I)  # any run from a letter, digit or _ (pack)
RUN = re.compile(r"[\w./\-]+")  # any run of word characters, dots, slashes, dashes
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


def terms(text: str) -> list[str]:
    """Terms of ``text`` in order, lower-cased, stopwords and 1-letter tokens dropped."""
    out = []
    for raw in TERM.findall(text):
        t = raw.lower().strip("./-")
        if len(t) > 1 and t not in STOPWORDS:
            out.append(t)
    return out


def bigrams(ts: list[str]) -> set[str]:
    """Adjacent term pairs, space-joined (terms never contain spaces, so keys cannot clash)."""
    return {f"{a} {b}" for a, b in zip(ts, ts[1:]) if a != b}


def corpus_stats(texts: Iterable[str], phrase_texts: Iterable[str] = ()) -> CorpusStats:
    """Document frequencies of terms over ``texts`` and of bigrams over ``phrase_texts``, and
    the mean token count of ``phrase_texts`` (the dialogues: the card budget's scale).

    Bigrams are counted over the (shorter) dialogue texts only: over whole exchanges with tool
    output they would cost memory and add nothing a person would call a topic.
    """
    dialogues = list(phrase_texts)
    n, df, stem_df, tokens = corpus_counts(texts, dialogues)
    return CorpusStats(n_docs=n, term_df=dict(df), stem_df=dict(stem_df),
                       dialogue_mean=tokens / len(dialogues) if dialogues else 0.0)


def corpus_counts(texts: Iterable[str], dialogues: Iterable[str]) -> tuple[int, Counter, Counter, int]:
    """What :func:`corpus_stats` is made of, as sums (so counts of two corpora add up):
    ``(documents, term df, stem df, dialogue tokens)``. Both inputs are read once, in order,
    so they can be streamed."""
    from palace_lab.distill.keywords import stem
    from palace_lab.distill.noise import without_blobs
    from palace_lab.tokens import count_tokens

    df: Counter = Counter()
    stem_df: Counter = Counter()
    n = 0
    for text in texts:
        n += 1
        seen = set(terms(text))
        df.update(seen)
        stem_df.update({stem(t) for t in seen})
    tokens, batch = 0, []
    for text in dialogues:
        df.update(bigrams(terms(text)))
        batch.append(without_blobs(text)[0])  # the budget's scale: what was written, not pasted
        if len(batch) == 1024:
            tokens, batch = tokens + sum(count_tokens(batch)), []
    return n, df, stem_df, tokens + (sum(count_tokens(batch)) if batch else 0)


def idf(term: str, stats: CorpusStats) -> float:
    df = stats.term_df.get(term, 0)
    return math.log((stats.n_docs + 1) / (df + 1)) + 1.0


def salient_terms(text: str, stats: CorpusStats, k: int = 10) -> list[tuple[str, float]]:
    """The ``k`` terms of ``text`` with the highest tf·idf (sublinear tf), best first."""
    tf = Counter(terms(text))
    scored = [(t, (1 + math.log(c)) * idf(t, stats)) for t, c in tf.items()]
    scored.sort(key=lambda x: (-x[1], x[0]))
    return scored[:k]
