"""BM25 over one layer's texts (bm25s, Lucene variant: k1=1.5, b=0.75 by default).

Score of a document D for a query Q (Robertson & Zaragoza 2009; the Lucene idf and term
frequency of Kamphuis et al. 2020, as bm25s computes them)::

    score(D, Q) = Σ_{t∈Q} idf(t) · tf(t,D) / (tf(t,D) + k1·(1 − b + b·|D|/avgdl))
    idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

Queries go through the same :class:`~palace_lab.text.tokenize.Tokenizer` as documents. Scores
are computed for every document, so any ``k`` works, even one larger than the corpus;
documents scoring 0 (no query term) are not returned.

bm25s builds the index (its eager score matrix, term-major: ``indptr``/``indices``/``data``);
it is saved as bm25s' own npy/json files plus ``stats.json`` (N, avgdl, k1, b). Loading and
querying never import bm25s (whose import pulls in numba and scipy, ~0.6 s of a one-shot
``palace-lab search``): the arrays are memory-mapped and a query sums its terms' postings with
``np.add.at`` in float32, term by term, exactly as bm25s' numpy backend does (equal scores).

A *delta* (:mod:`palace_lab.index.bm25_delta`) may sit beside the main matrix: rows added
since the main index was built, scored with the main index's statistics, and main rows that
were removed since (never returned). :attr:`BM25Index.size` counts both parts; row ``i`` of
the delta is row ``main_rows + i``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from palace_lab.index.exact import Found, top_rows
from palace_lab.text.tokenize import Tokenizer, TokenizerSettings

# bm25s' file names (``BM25.save``), kept so an index folder stays readable by bm25s itself.
FILES = {"data": "data.csc.index.npy", "indices": "indices.csc.index.npy",
         "indptr": "indptr.csc.index.npy"}
VOCAB, PARAMS, STATS = "vocab.index.json", "params.index.json", "stats.json"


def lucene_idf(df: np.ndarray, n: int) -> np.ndarray:
    """``ln(1 + (N − df + 0.5) / (df + 0.5))`` (float64)."""
    df = np.asarray(df, dtype=np.float64)
    return np.log1p((n - df + 0.5) / (df + 0.5))


def postings_scores(data, indices, indptr, term_ids, size: int) -> np.ndarray:
    """Σ over ``term_ids`` of their postings' scores, per document (float32, bm25s' order)."""
    scores = np.zeros(size, dtype=np.float32)
    for t in term_ids:
        start, end = int(indptr[t]), int(indptr[t + 1])
        np.add.at(scores, indices[start:end], data[start:end])
    return scores


class BM25Index:
    """The main score matrix (built by bm25s) with its vocabulary and statistics, an optional
    delta, and the tokenizer its vocabulary was built with."""

    def __init__(self, arrays: dict[str, np.ndarray], vocab: dict[str, int], tokenizer: Tokenizer,
                 main_rows: int, stats: dict | None, source: Path | None = None,
                 delta=None, live: np.ndarray | None = None):
        self.arrays = arrays
        self.vocab = vocab
        self.tokenizer = tokenizer
        self.main_rows = main_rows
        self.stats = stats  # {"n", "avgdl", "k1", "b"}; None for a folder saved before them
        self.source = source  # the folder holding the main files (for linking, not copying)
        self.delta = delta  # bm25_delta.Delta or None
        self.live = live  # bool per row, None when every row is live
        self.n_terms = len(arrays["indptr"]) - 1 if arrays else 0
        self.size = main_rows + (delta.rows if delta is not None else 0)

    @classmethod
    def build(cls, texts: list[str], *, tokenizer: Tokenizer | None = None,
              k1: float = 1.5, b: float = 0.75) -> "BM25Index":
        import bm25s

        tokenizer = tokenizer or Tokenizer()
        # Every document gets at least the empty term so bm25s sees a non-empty vocabulary.
        corpus = [tokenizer(t) or [""] for t in texts]
        arrays, vocab, stats = {}, {}, {"n": len(texts), "avgdl": 0.0, "k1": k1, "b": b}
        if corpus:
            retriever = bm25s.BM25(k1=k1, b=b)
            retriever.index(corpus, show_progress=False)
            arrays = {name: np.asarray(retriever.scores[name]) for name in FILES}
            vocab = dict(retriever.vocab_dict)
            stats["avgdl"] = float(np.mean([len(doc) for doc in corpus]))
        return cls(arrays, vocab, tokenizer, len(texts), stats)

    @property
    def has_delta(self) -> bool:
        """True when rows were added or removed since the main matrix was built."""
        return self.delta is not None and self.delta.rows > 0 or self.live is not None

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every row for ``query`` (zeros when no term is known)."""
        terms = list(dict.fromkeys(self.tokenizer(query)))
        main = np.zeros(self.main_rows, dtype=np.float32)
        ids = [i for i in (self.vocab.get(t, -1) for t in terms) if 0 <= i < self.n_terms]
        if ids and self.main_rows:
            a = self.arrays
            main = postings_scores(a["data"], a["indices"], a["indptr"], ids, self.main_rows)
        if self.delta is not None:
            main = np.concatenate([main, self.delta.scores(terms)])
        if self.live is not None:
            main[~self.live] = 0.0
        return main

    def search(self, query: str, k: int, allowed: np.ndarray | None = None) -> Found:
        """``(rows, scores)`` of the ``k`` best documents with a positive score."""
        scores = self.scores(query)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        rows, values = top_rows(scores, k)
        keep = values > 0
        return Found(rows[keep], values[keep])

    # -- files ----------------------------------------------------------------------------

    def save(self, folder: Path) -> None:
        """The main files under ``folder/bm25`` (hard links to :attr:`source` when it has them,
        so a delta folder does not copy the main matrix), ``stats.json`` and the delta."""
        target = folder / "bm25"
        target.mkdir(parents=True, exist_ok=True)
        if self.source is not None:
            for name in [*FILES.values(), VOCAB, PARAMS]:
                if (self.source / name).is_file():
                    _link_or_copy(self.source / name, target / name)
        elif self.arrays:
            for key, name in FILES.items():
                np.save(target / name, self.arrays[key], allow_pickle=False)
            (target / VOCAB).write_text(json.dumps(self.vocab, ensure_ascii=False), "utf-8")
            params = {"k1": self.stats["k1"], "b": self.stats["b"], "delta": 0.5,
                      "method": "lucene", "idf_method": "lucene", "dtype": "float32",
                      "int_dtype": "int32", "num_docs": self.main_rows, "backend": "numpy"}
            (target / PARAMS).write_text(json.dumps(params, indent=1), "utf-8")
        if self.stats is not None:
            (target / STATS).write_text(json.dumps(self.stats), "utf-8")
        if self.delta is not None:
            self.delta.save(folder)
        from palace_lab.index import bm25_delta

        bm25_delta.write_live(folder, self.live)

    @classmethod
    def load(cls, folder: Path, size: int, settings: TokenizerSettings) -> "BM25Index":
        """Memory-maps the main matrix; reads the delta and the removed rows if any."""
        from palace_lab.index import bm25_delta

        source = folder / "bm25"
        arrays, vocab, stats, main_rows = {}, {}, None, 0
        if (source / FILES["indptr"]).is_file():
            arrays = {key: np.load(source / name, allow_pickle=False, mmap_mode="r")
                      for key, name in FILES.items()}
            vocab = json.loads((source / VOCAB).read_bytes())
            params = json.loads((source / PARAMS).read_bytes())
            main_rows = int(params["num_docs"])
        if (source / STATS).is_file():
            stats = json.loads((source / STATS).read_bytes())
        delta = bm25_delta.Delta.load(folder)
        rows = main_rows + (delta.rows if delta else 0)
        if rows != size:
            raise OSError(f"BM25 index in {folder} has {rows} rows, its ids {size}")
        live = bm25_delta.read_live(folder, rows)
        return cls(arrays, vocab, Tokenizer(settings), main_rows, stats, source, delta, live)


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system, or links not allowed: copy
        shutil.copy2(src, dst)
