"""Rooms: how one distiller version files the palace's exchanges, as plain data for the room map.

A distilled card puts its exchange in 1-3 rooms (``room_type`` file|concept|workflow,
``room_key``, ``room_label``, ``relevance``). Here a room is identified by ``(room_type,
room_key)``; its label is the most frequent label its cards gave it (ties: the first seen).

- :func:`room_stats`: per room, the exchanges filed there and their tokens (any per-exchange
  token map, e.g. verbatim or core tokens from :mod:`palace_lab.budget`).
- :func:`top_room`: the card's most relevant room (ties: the card's own order), optionally
  among one room type only; what the 2-D projection is coloured by.
- :func:`co_occurrence`: for the ``top`` largest rooms, how many exchanges sit in both.
- :func:`project`: 2-D coordinates of embedding rows by PCA or t-SNE (scikit-learn, imported
  here only), deterministic for a seed. t-SNE is quadratic-ish: above ``max_points`` rows a
  seeded sample is projected and the caller is told how many were kept.
- :func:`room_members`: the drill-down, room → cards (most relevant first) → exchange ids.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from palace_lab.errors import InputError
from palace_lab.model import DistilledCard, Room

RoomId = tuple[str, str]  # (room_type, room_key)
PROJECTIONS = ("pca", "tsne")
OTHER = "(other rooms)"


@dataclass(frozen=True)
class RoomStat:
    """One room of one distiller version: its size in exchanges and in tokens."""

    room_type: str
    room_key: str
    room_label: str
    exchanges: int
    tokens: int
    mean_relevance: float

    @property
    def room_id(self) -> RoomId:
        return (self.room_type, self.room_key)

    def to_dict(self) -> dict:
        return {"room_type": self.room_type, "room_key": self.room_key,
                "room_label": self.room_label, "exchanges": self.exchanges,
                "tokens": self.tokens, "mean_relevance": round(self.mean_relevance, 3)}


def _labels(cards: Iterable[DistilledCard]) -> dict[RoomId, str]:
    seen: dict[RoomId, Counter] = {}
    for card in cards:
        for r in card.room_assignments:
            seen.setdefault((r.room_type, r.room_key), Counter())[r.room_label] += 1
    return {rid: labels.most_common(1)[0][0] for rid, labels in seen.items()}


def room_stats(cards: Sequence[DistilledCard], tokens: Mapping[str, int] | None = None
               ) -> list[RoomStat]:
    """Every room with its exchange count and token total, largest first (ties by key).

    An exchange filed twice in the same room (a card repeating a room) counts once.
    """
    tokens = tokens or {}
    members: dict[RoomId, dict[str, float]] = {}
    for card in cards:
        for r in card.room_assignments:
            held = members.setdefault((r.room_type, r.room_key), {})
            held[card.exchange_id] = max(held.get(card.exchange_id, 0.0), float(r.relevance))
    labels = _labels(cards)
    stats = [RoomStat(rtype, key, labels[(rtype, key)], len(held),
                      sum(tokens.get(e, 0) for e in held), sum(held.values()) / len(held))
             for (rtype, key), held in members.items()]
    return sorted(stats, key=lambda s: (-s.exchanges, s.room_type, s.room_key))


def top_room(card: DistilledCard, room_type: str | None = None) -> Room | None:
    """The card's most relevant room (of ``room_type`` when given); None if it has none."""
    rooms = [r for r in card.room_assignments if room_type is None or r.room_type == room_type]
    if not rooms:
        return None
    return max(rooms, key=lambda r: (r.relevance, -rooms.index(r)))


def colour_groups(cards: Sequence[DistilledCard], *, room_type: str | None = None,
                  keep: int = 12) -> dict[str, str]:
    """``{exchange_id: group}``: the top room's label among the ``keep`` commonest top rooms,
    :data:`OTHER` for the rest and ``"(no room)"`` for cards without a room of that type."""
    tops = {c.exchange_id: top_room(c, room_type) for c in cards}
    counts = Counter((r.room_type, r.room_key) for r in tops.values() if r is not None)
    kept = {rid for rid, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:keep]}
    labels = _labels(cards)
    out = {}
    for eid, room in tops.items():
        if room is None:
            out[eid] = "(no room)"
        else:
            rid = (room.room_type, room.room_key)
            out[eid] = f"{room.room_type}: {labels[rid]}" if rid in kept else OTHER
    return out


def co_occurrence(cards: Sequence[DistilledCard], *, top: int = 20
                  ) -> tuple[list[RoomStat], np.ndarray]:
    """The ``top`` largest rooms and a symmetric matrix: cell (i, j) = exchanges filed in both
    rooms i and j; the diagonal holds each room's own exchange count."""
    stats = room_stats(cards)[:top]
    index = {s.room_id: i for i, s in enumerate(stats)}
    matrix = np.zeros((len(stats), len(stats)), dtype=np.int64)
    for card in cards:
        ids = sorted({index[(r.room_type, r.room_key)] for r in card.room_assignments
                      if (r.room_type, r.room_key) in index})
        for a in ids:
            for b in ids:
                matrix[a, b] += 1
    return stats, matrix


def room_members(cards: Sequence[DistilledCard], room_type: str, room_key: str
                 ) -> list[tuple[DistilledCard, float]]:
    """The cards filed in one room with their relevance there, most relevant first (then in
    the palace's exchange order, which ``cards`` is given in)."""
    found = []
    for position, card in enumerate(cards):
        rel = [r.relevance for r in card.room_assignments
               if r.room_type == room_type and r.room_key == room_key]
        if rel:
            found.append((position, card, max(rel)))
    found.sort(key=lambda item: (-item[2], item[0]))
    return [(card, rel) for _, card, rel in found]


def sample_rows(n: int, max_points: int, seed: int = 0) -> list[int]:
    """All row numbers when ``n <= max_points``, else a sorted seeded sample of them."""
    if n <= max_points:
        return list(range(n))
    return sorted(random.Random(seed).sample(range(n), max_points))


def project(vectors: np.ndarray, method: str = "pca", *, seed: int = 0) -> np.ndarray:
    """``(n, 2)`` coordinates of the rows of ``vectors``.

    ``pca``: the first two principal components (scikit-learn PCA, full SVD: deterministic).
    ``tsne``: scikit-learn t-SNE on cosine distance with PCA initialisation, perplexity
    ``min(30, (n - 1) / 3)`` (it must stay below n), after PCA to at most 50 dimensions (the
    usual speed-up; van der Maaten & Hinton 2008). Fewer than 3 rows: zeros (nothing to see).
    """
    if method not in PROJECTIONS:
        raise InputError(f"unknown projection {method!r}; valid projections: {', '.join(PROJECTIONS)}")
    vectors = np.asarray(vectors, dtype=np.float32)
    n = vectors.shape[0]
    if n < 3:
        return np.zeros((n, 2), dtype=np.float32)
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, svd_solver="full", random_state=seed).fit_transform(vectors)
    from sklearn.decomposition import PCA
    from sklearn.manifold import TSNE

    if vectors.shape[1] > 50 and n > 50:
        vectors = PCA(n_components=50, svd_solver="full", random_state=seed).fit_transform(vectors)
    perplexity = float(min(30.0, (n - 1) / 3))
    return TSNE(n_components=2, perplexity=perplexity, metric="cosine", init="pca", max_iter=500,
                random_state=seed).fit_transform(vectors)


def projection_rows(exchange_ids: Sequence[str], coords: np.ndarray, groups: Mapping[str, str],
                    cards: Mapping[str, DistilledCard]) -> list[dict]:
    """One plain row per projected exchange: id, x, y, group, core text (for hover)."""
    return [{"exchange_id": eid, "x": float(x), "y": float(y), "room": groups.get(eid, "(no room)"),
             "core": cards[eid].exchange_core if eid in cards else ""}
            for eid, (x, y) in zip(exchange_ids, np.asarray(coords).tolist())]
