"""Incremental BM25: a small delta beside the main matrix instead of a full rebuild.

When a layer's content changed, the previous BM25 folder of the same slot is the *base*. Its
main rows are compared with the layer's texts now (per row, :func:`row_key` of the text, in
``rows.json``, as :mod:`palace_lab.index.grow` does for HNSW):

- a main row whose exchange is gone or whose text changed (a replaced exchange) is *removed*:
  its id is blanked to ``""`` and its score forced to 0 (``removed.npy``), so it is never
  returned, filtered or not;
- every text without a live main row (new exchanges, replaced ones, and the rows of the base's
  own delta) goes into the new delta, tokenized by the same tokenizer and scored **with the
  main index's statistics**: the main ``N`` and ``avgdl``, and for a term of the main
  vocabulary its main ``df``, so a delta row's score for a term is computed exactly like a main
  row's and the two parts rank on one scale. A term the main vocabulary lacks gets
  ``idf(df_delta, N + delta rows)`` (no main row has it, so no main score is affected).

The approximation, against a full rebuild: the statistics are those of the main rows at build
time (removed rows still count in N and df, the delta's rows do not), as Lucene ranks deleted
and new segments until a merge. With the delta capped at :data:`COMPACT_AT` of the main rows
(5%), N, df and avgdl drift by at most that much; the tests measure the top-10 agreement with a
rebuild. The main files are hard links to the base's, so a delta folder costs only the delta.

Compaction: a change that would push removed + delta rows over :data:`COMPACT_AT` rebuilds the
layer from scratch, and so does ``palace-lab index`` (:meth:`IndexSet.compact`). Layers of at
most :data:`DELTA_FROM` rows are always rebuilt (a second or two), so a small palace ranks
exactly as a fresh build.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

from palace_lab.index.bm25 import lucene_idf, postings_scores
from palace_lab.model import content_hash

COMPACT_AT = 0.05  # removed + delta rows allowed, as a fraction of the main rows
DELTA_FROM = 5_000  # layers of more rows than this take a delta; smaller ones are rebuilt
FOLDER, REMOVED = "bm25_delta", "removed.npy"


def row_key(text: str) -> str:
    """What a BM25 row was built from (its text's hash)."""
    return content_hash("bm25", text)[:20]


def worth_delta(main_rows: int, removed: int, added: int, rows_now: int) -> bool:
    """A delta only for a large layer whose removed + delta rows stay under COMPACT_AT."""
    return rows_now > DELTA_FROM and main_rows > 0 and removed + added <= COMPACT_AT * main_rows


class Delta:
    """Term-major postings of the delta rows: ``terms`` (term → column), ``indptr``,
    ``indices`` (delta row) and ``data`` (BM25 score of that term in that row)."""

    def __init__(self, terms: dict[str, int], indptr: np.ndarray, indices: np.ndarray,
                 data: np.ndarray, rows: int):
        self.terms, self.indptr, self.indices, self.data = terms, indptr, indices, data
        self.rows = rows

    @classmethod
    def build(cls, texts: list[str], tokenizer, main) -> "Delta":
        """The delta of ``texts`` scored with ``main``'s statistics (a :class:`BM25Index`)."""
        stats = main.stats
        k1, b, avgdl, n_main = stats["k1"], stats["b"], stats["avgdl"] or 1.0, stats["n"]
        terms: dict[str, int] = {}
        cols, docs, tfs, lengths = [], [], [], []
        for row, text in enumerate(texts):
            tokens = tokenizer(text)
            lengths.append(max(len(tokens), 1))  # bm25s indexes an empty text as [""]
            for term, tf in Counter(tokens).items():
                cols.append(terms.setdefault(term, len(terms)))
                docs.append(row)
                tfs.append(tf)
        cols_a = np.asarray(cols, dtype=np.int64)
        docs_a = np.asarray(docs, dtype=np.int32)
        tf = np.asarray(tfs, dtype=np.float64)
        df_delta = np.bincount(cols_a, minlength=len(terms))
        idf = lucene_idf(df_delta, n_main + len(texts))
        indptr_main = main.arrays.get("indptr")
        for term, col in terms.items():
            i = main.vocab.get(term, -1)
            if 0 <= i < main.n_terms:
                idf[col] = lucene_idf(int(indptr_main[i + 1]) - int(indptr_main[i]), n_main)
        dl = np.asarray(lengths, dtype=np.float64)[docs_a]
        scores = idf[cols_a] * tf / (tf + k1 * (1 - b + b * dl / avgdl))
        order = np.argsort(cols_a, kind="stable")
        indptr = np.concatenate([[0], np.cumsum(df_delta)]).astype(np.int64)
        return cls(terms, indptr, docs_a[order], scores[order].astype(np.float32), len(texts))

    def scores(self, terms: list[str]) -> np.ndarray:
        cols = [self.terms[t] for t in terms if t in self.terms]
        return postings_scores(self.data, self.indices, self.indptr, cols, self.rows)

    def save(self, folder: Path) -> None:
        target = folder / FOLDER
        target.mkdir(parents=True, exist_ok=True)
        for name in ("indptr", "indices", "data"):
            np.save(target / f"{name}.npy", getattr(self, name), allow_pickle=False)
        (target / "terms.json").write_text(json.dumps(list(self.terms), ensure_ascii=False),
                                           "utf-8")
        (target / "rows.json").write_text(json.dumps(self.rows), "utf-8")

    @classmethod
    def load(cls, folder: Path) -> "Delta | None":
        target = folder / FOLDER
        if not (target / "rows.json").is_file():
            return None
        arrays = {name: np.load(target / f"{name}.npy", allow_pickle=False)
                  for name in ("indptr", "indices", "data")}
        terms = {t: i for i, t in enumerate(json.loads((target / "terms.json").read_bytes()))}
        rows = int(json.loads((target / "rows.json").read_bytes()))
        return cls(terms, arrays["indptr"], arrays["indices"], arrays["data"], rows)


def delta_rows(folder: Path) -> int:
    """How many delta rows the index saved in ``folder`` has (0 without a delta)."""
    path = folder / FOLDER / "rows.json"
    return int(json.loads(path.read_bytes())) if path.is_file() else 0


def live_mask(ids: list[str]) -> np.ndarray | None:
    """True per row whose id is not blank; None when no row is blank."""
    mask = np.fromiter((bool(i) for i in ids), dtype=bool, count=len(ids))
    return None if mask.all() else mask


def write_live(folder: Path, live: np.ndarray | None) -> None:
    if live is not None:
        np.save(folder / REMOVED, np.flatnonzero(~live).astype(np.int64), allow_pickle=False)


def read_live(folder: Path, rows: int) -> np.ndarray | None:
    path = folder / REMOVED
    if not path.is_file():
        return None
    live = np.ones(rows, dtype=bool)
    live[np.load(path, allow_pickle=False)] = False
    return live


def with_delta(base, base_ids: list[str], base_rows: list[str], ids: list[str],
               rows: list[str], texts: list[str], tokenizer):
    """``(index, ids, rows)``: ``base``'s main rows with the layer's changes applied as removed
    rows and a new delta, or None when a rebuild is due (too large a change, a small layer, a
    base without statistics)."""
    from palace_lab.index import grow
    from palace_lab.index.bm25 import BM25Index

    if base.stats is None:
        return None
    n_main = base.main_rows
    change = grow.delta(base_ids[:n_main], base_rows[:n_main], ids, rows)
    removed = base_ids[:n_main].count("") + len(change.dropped)
    if not worth_delta(n_main, removed, len(change.added), len(ids)):
        return None
    out_ids, out_rows = list(base_ids[:n_main]), list(base_rows[:n_main])
    for r in change.dropped:
        out_ids[r], out_rows[r] = "", ""
    delta = Delta.build([texts[i] for i in change.added], tokenizer, base)
    out_ids += [ids[i] for i in change.added]
    out_rows += [rows[i] for i in change.added]
    index = BM25Index(base.arrays, base.vocab, tokenizer, n_main, base.stats, base.source,
                      delta, live_mask(out_ids))
    return index, out_ids, out_rows
