"""Two card versions of the same exchanges, side by side, and the retrieval each one keeps.

Tuning a distillation prompt (or the rules distiller's knobs) means re-distilling a *sample*
of exchanges into a second distiller version and comparing. Both versions are then searched on
the same sub-corpus, the sample, so the comparison is fair even though the trial version has
cards only for the sample:

- the sample (:func:`choose_sample`): up to half of it exchanges judged relevant (grade >= 2)
  for the judged queries, the rest other exchanges as distractors, both drawn with a seed;
- the queries: the judged queries with at least one relevant exchange in the sample; their
  qrels restricted to the sample (:func:`restrict`);
- the search (:class:`SampleSearch`): the mode language over the sample's layer texts, BM25
  with the engine's tokenizer, vector modes by exact cosine (on a few dozen exchanges ``hnsw``
  would only approximate it), fused modes with the engine's fusion functions at depth 100.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from palace_lab.errors import InputError
from palace_lab.index.embed import Embedder, embed_texts
from palace_lab.evaluate.base import DEFAULT_REL_LEVEL, Qrels, Run
from palace_lab.evaluate.metrics import evaluate
from palace_lab.index.bm25 import BM25Index
from palace_lab.index.exact import top_rows
from palace_lab.text.tokenize import Tokenizer
from palace_lab.index.layers import get_layer
from palace_lab.search import fusion
from palace_lab.search.engine import MIN_DEPTH
from palace_lab.search.modes import FusedMode, PureMode, parse_mode

if TYPE_CHECKING:
    from palace_lab.store import Palace

TRIAL_MODES = ("bm25:core", "exact:core", "bm25:verbatim", "rrf(bm25:verbatim,exact:core;k=60)")
TRIAL_METRICS = ("mrr", "p@1", "ndcg@10")
DEPTH = MIN_DEPTH  # each part of a fused mode to the engine's depth


def choose_sample(palace: Palace, qrels: Qrels, *, n: int = 40, seed: int = 0,
                  relevant_share: float = 0.5) -> list[str]:
    """Exchange ids: up to ``relevant_share`` of ``n`` judged relevant, the rest distractors."""
    if n < 2:
        raise InputError("a sample needs at least 2 exchanges")
    every = list(palace.exchange_hashes())  # ids in palace order, read from an index
    known = set(every)
    relevant = sorted({e for docs in qrels.values() for e, g in docs.items()
                       if g >= DEFAULT_REL_LEVEL and e in known})
    rng = random.Random(seed)
    rng.shuffle(relevant)
    chosen = relevant[: int(n * relevant_share)]
    taken = set(chosen)
    others = [e for e in every if e not in taken]
    rng.shuffle(others)
    picked = set(chosen + others[: n - len(chosen)])
    return [e for e in every if e in picked]  # palace order


def restrict(qrels: Qrels, exchange_ids: Iterable[str]) -> Qrels:
    """Qrels of the sample: judgments of sample exchanges, for queries with a relevant one."""
    keep = set(exchange_ids)
    out = {q: {e: g for e, g in docs.items() if e in keep} for q, docs in qrels.items()}
    return {q: docs for q, docs in out.items() if any(g >= DEFAULT_REL_LEVEL for g in docs.values())}


def card_pairs(palace: Palace, base: str, trial: str, exchange_ids: Sequence[str],
               count_tokens=None) -> list[dict]:
    """One row per sample exchange: the two versions' core, context, keywords and rooms, side by
    side; ``*_tokens`` counts each version's searchable card (core + context + keywords)."""
    a, b = palace.card_map(base), palace.card_map(trial)
    rows = []
    for eid in exchange_ids:
        ca, cb = a.get(eid), b.get(eid)
        rows.append({"exchange_id": eid,
                     "base_core": ca.exchange_core if ca else None,
                     "trial_core": cb.exchange_core if cb else None,
                     "base_context": ca.specific_context if ca else None,
                     "trial_context": cb.specific_context if cb else None,
                     "base_keywords": " ".join(ca.keywords) if ca else None,
                     "trial_keywords": " ".join(cb.keywords) if cb else None,
                     "base_rooms": ", ".join(r.room_key for r in ca.room_assignments) if ca else None,
                     "trial_rooms": ", ".join(r.room_key for r in cb.room_assignments) if cb else None})
    if count_tokens:
        for key in ("base", "trial"):
            texts = [f"{r[f'{key}_core'] or ''}\n{r[f'{key}_context'] or ''}\n"
                     f"{r[f'{key}_keywords'] or ''}".strip() for r in rows]
            for row, n in zip(rows, count_tokens(texts)):
                row[f"{key}_tokens"] = n
    return rows


class SampleSearch:
    """Search modes over a handful of exchanges with one distiller version's cards."""

    def __init__(self, palace: Palace, exchange_ids: Sequence[str], distiller: str, embedder: Embedder):
        wanted = set(exchange_ids)
        self.exchanges = [e for e in palace.exchanges() if e.exchange_id in wanted]
        self.cards = {eid: c for eid, c in palace.card_map(distiller).items() if eid in wanted}
        self.palace, self.embedder, self.tokenizer = palace, embedder, Tokenizer()
        self._layers: dict[str, tuple[list[str], list[str]]] = {}
        self._bm25: dict[str, BM25Index] = {}
        self._vectors: dict[str, np.ndarray] = {}

    def _texts(self, layer: str) -> tuple[list[str], list[str]]:
        if layer not in self._layers:
            spec = get_layer(layer)
            rows = [(e.exchange_id, spec.text_fn(e, self.cards.get(e.exchange_id)))
                    for e in self.exchanges if not spec.needs_cards or e.exchange_id in self.cards]
            self._layers[layer] = ([r[0] for r in rows], [r[1] for r in rows])
        return self._layers[layer]

    def _pure(self, query: str, vector: np.ndarray | None, mode: PureMode) -> dict[str, float]:
        ids, texts = self._texts(mode.layer)
        if mode.mechanism == "bm25":
            if mode.layer not in self._bm25:
                self._bm25[mode.layer] = BM25Index.build(texts, tokenizer=self.tokenizer)
            rows, scores = self._bm25[mode.layer].search(query, DEPTH)
        else:
            if mode.layer not in self._vectors:
                self._vectors[mode.layer] = embed_texts(self.palace, self.embedder, texts)
            rows, scores = top_rows(self._vectors[mode.layer] @ vector, DEPTH)
        return {ids[r]: float(s) for r, s in zip(rows.tolist(), scores.tolist())}

    def run(self, queries: Mapping[str, str], mode: str, k: int = 10) -> Run:
        parsed = parse_mode(mode)
        qids = list(queries)
        needs = any(r.mechanism != "bm25" for r in parsed.runs)
        vectors = self.embedder.embed_batch([queries[q] for q in qids]) if needs else [None] * len(qids)
        out: Run = {}
        for qid, vector in zip(qids, vectors):
            parts = [self._pure(queries[qid], vector, r) for r in parsed.runs]
            if isinstance(parsed, FusedMode):
                scores = fusion.fuse(parsed.fusion, parts, weights=parsed.weights, **dict(parsed.params))
            else:
                scores = parts[0]
            out[qid] = dict(fusion.rank_order(scores)[:k])
        return out


def compare_versions(palace: Palace, versions: Sequence[str], exchange_ids: Sequence[str],
                     queries: Sequence[Mapping], qrels: Qrels, embedder: Embedder, *,
                     modes: Sequence[str] = TRIAL_MODES,
                     metrics: Sequence[str] = TRIAL_METRICS) -> tuple[list[dict], dict]:
    """Rows ``{version, mode, n, metric...}`` on the sample, and what they rest on."""
    sample_qrels = restrict(qrels, exchange_ids)
    texts = {q["query_id"]: q["query"] for q in queries if q["query_id"] in sample_qrels}
    info = {"exchanges": len(exchange_ids), "queries": len(texts),
            "judgments": sum(len(sample_qrels[q]) for q in texts)}
    if not texts:
        return [], info
    qrels_used = {q: sample_qrels[q] for q in texts}
    rows = []
    for version in versions:
        search = SampleSearch(palace, exchange_ids, version, embedder)
        for mode in modes:
            values = evaluate(qrels_used, search.run(texts, mode), list(metrics))
            rows.append({"version": version, "mode": mode, "cards": len(search.cards),
                         "queries": len(texts), **values})
    return rows, info
