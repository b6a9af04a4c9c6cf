"""BM25Index on its own: scores by the docstring's formula, worked by hand; files round-trip."""

from __future__ import annotations

import math

import numpy as np
import pytest

from palace_lab.index.bm25 import BM25Index, lucene_idf
from palace_lab.text.tokenize import Tokenizer, TokenizerSettings

PLAIN = TokenizerSettings(stemmer=None, stopwords=None, split_compounds=False, min_len=1)
DOCS = ["redis cache redis", "postgres pool", "redis pool timeout retry"]


def by_hand(query: str, docs: list[str], k1: float = 1.5, b: float = 0.75) -> list[float]:
    """Σ idf(t)·tf/(tf + k1·(1 − b + b·|D|/avgdl)) with the Lucene idf, for every document."""
    tokens = [d.split() for d in docs]
    avgdl = sum(map(len, tokens)) / len(tokens)
    out = []
    for doc in tokens:
        score = 0.0
        for term in dict.fromkeys(query.split()):
            df = sum(term in d for d in tokens)
            tf = doc.count(term)
            if tf:
                idf = math.log(1 + (len(tokens) - df + 0.5) / (df + 0.5))
                score += idf * tf / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        out.append(score)
    return out


@pytest.mark.parametrize("query", ["redis", "pool", "redis pool", "timeout redis redis", "absent"])
def test_scores_follow_the_formula(query):
    index = BM25Index.build(DOCS, tokenizer=Tokenizer(PLAIN))
    assert index.scores(query) == pytest.approx(by_hand(query, DOCS), rel=1e-5, abs=1e-6)


def test_lucene_idf_by_hand():
    assert lucene_idf(np.array([1, 3]), 3) == pytest.approx([math.log(1 + 2.5 / 1.5),
                                                             math.log(1 + 0.5 / 3.5)])


def test_search_returns_positive_scores_best_first_and_respects_allowed():
    index = BM25Index.build(DOCS, tokenizer=Tokenizer(PLAIN))
    rows, scores = index.search("redis pool", k=10)
    hand = by_hand("redis pool", DOCS)
    assert list(rows) == sorted(range(3), key=lambda i: -hand[i])
    assert list(scores) == sorted(scores, reverse=True) and (scores > 0).all()
    rows, _ = index.search("redis", k=10)
    assert sorted(rows) == [0, 2]  # the document without the term is not returned
    rows, _ = index.search("redis", k=10, allowed=np.array([False, True, True]))
    assert list(rows) == [2]
    assert len(index.search("redis", k=1).rows) == 1


def test_saved_and_memory_mapped_index_scores_the_same(tmp_path):
    built = BM25Index.build(DOCS, tokenizer=Tokenizer(PLAIN))
    built.save(tmp_path)
    loaded = BM25Index.load(tmp_path, len(DOCS), PLAIN)
    assert isinstance(loaded.arrays["data"], np.memmap)
    for query in ["redis", "pool timeout", "nothing"]:
        assert np.array_equal(loaded.scores(query), built.scores(query))


def test_a_folder_whose_rows_disagree_with_its_ids_is_refused(tmp_path):
    BM25Index.build(DOCS, tokenizer=Tokenizer(PLAIN)).save(tmp_path)
    with pytest.raises(OSError, match="3 rows, its ids 4"):
        BM25Index.load(tmp_path, 4, PLAIN)


def test_empty_corpus_and_empty_texts():
    assert BM25Index.build([]).search("anything", 5).rows.size == 0
    index = BM25Index.build(["", "redis"], tokenizer=Tokenizer(PLAIN))
    assert list(index.search("redis", 5).rows) == [1]
