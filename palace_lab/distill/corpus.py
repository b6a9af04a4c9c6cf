"""The palace's corpus statistics for distilling, kept up to date incrementally.

A distiller's :class:`CorpusStats` (document frequencies of terms, stems and dialogue bigrams,
the mean dialogue length) are sums over exchanges, so 100 new exchanges add 100 exchanges'
counts instead of recounting 50,000 (38 s at that size). The counts are kept as files beside the
indexes (``<palace>.indexes/corpus/``, derived data: deleting them costs one recount) with the
``(exchange id, hash)`` of every exchange they cover.

The rule, stated once (the same as the BM25 delta's, :mod:`palace_lab.index.bm25_delta`):

- a palace of at most :data:`FULL_FROM` exchanges is always counted whole (small palaces, the
  sample and the benchmarks' dev sets, get exact statistics, and no files are written);
- otherwise the stored counts are reused: exchanges new since (or whose text changed) are
  added; an exchange removed or replaced since still counts with its old text (a *ghost*), so
  ``n_docs`` and every ``df`` stay consistent with each other;
- once the changes since the last whole count (additions and ghosts) pass :data:`RECOUNT_SHARE`
  of the exchanges it counted, the palace is counted whole again.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from palace_lab.distill.base import CorpusStats
from palace_lab.distill.terms import corpus_counts

if TYPE_CHECKING:
    from palace_lab.store import Palace

FULL_FROM = 5_000
RECOUNT_SHARE = 0.05
FORMAT = 2  # 2: dialogue tokens without pasted blobs; bump when what the counts hold changes (terms(), bigrams(), stems)
FOLDER = "corpus"  # under the palace's cache root, beside the index folders


@dataclass
class Counts:
    """Summed per-exchange counts and the exchanges they cover."""

    covers: dict[str, str]  # exchange id -> hash of the text counted
    docs: int  # exchanges counted, ghosts included
    term_df: Counter
    stem_df: Counter
    dialogue_tokens: int
    base: int  # exchanges counted by the last whole count
    changes: int = 0  # exchanges added or turned ghost since

    def stats(self) -> CorpusStats:
        mean = self.dialogue_tokens / self.docs if self.docs else 0.0
        return CorpusStats(n_docs=self.docs, term_df=dict(self.term_df),
                           stem_df=dict(self.stem_df), dialogue_mean=mean)


def palace_stats(palace: Palace) -> CorpusStats:
    """The corpus statistics of the palace now (see the module docstring for the rule)."""
    current = palace.exchange_hashes()
    folder = _folder(palace)
    held = _read(folder) if folder and len(current) > FULL_FROM else None
    if held is not None:
        added = [e for e, h in current.items() if held.covers.get(e) != h]
        gone = sum(1 for e, h in held.covers.items() if current.get(e) != h)
        if held.changes + len(added) + gone <= RECOUNT_SHARE * held.base:
            if added or gone:
                _add(held, palace, added, current, gone)
                _write(folder, held)
            return held.stats()
    counts = _count(palace, None, current)
    if folder and len(current) > FULL_FROM:
        _write(folder, counts)
    return counts.stats()


def _count(palace: Palace, ids: list[str] | None, hashes: dict[str, str]) -> Counts:
    """Counts of the exchanges ``ids`` (None: every exchange, its texts streamed)."""
    if ids is None:
        texts, dialogues = palace.exchange_texts("verbatim"), palace.exchange_texts("dialogue")
        covers = dict(hashes)
    else:
        exchanges = palace.exchanges_by_id(ids)
        texts = (e.verbatim for e in exchanges.values())
        dialogues = (e.dialogue for e in exchanges.values())
        covers = {e: hashes[e] for e in exchanges}
    docs, term_df, stem_df, tokens = corpus_counts(texts, dialogues)
    return Counts(covers, docs, term_df, stem_df, tokens, base=docs)


def _add(held: Counts, palace: Palace, added: list[str], current: dict[str, str],
         gone: int) -> None:
    extra = _count(palace, added, current)
    held.term_df.update(extra.term_df)
    held.stem_df.update(extra.stem_df)
    held.dialogue_tokens += extra.dialogue_tokens
    held.docs += extra.docs
    held.changes += len(added) + gone
    held.covers = dict(current)


# -- files ----------------------------------------------------------------------------------

def _folder(palace: Palace) -> Path | None:
    if not palace.path or str(palace.path) == ":memory:":
        return None
    return palace.derived_root / FOLDER / f"v{FORMAT}"


def _read(folder: Path) -> Counts | None:
    """The stored counts, or None when there are none (or they cannot be read)."""
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        ids = (folder / "ids.txt").read_text(encoding="utf-8").split("\n")
        hashes = (folder / "hashes.txt").read_text(encoding="utf-8").split("\n")
        term_df, stem_df = _read_df(folder, "terms"), _read_df(folder, "stems")
    except (OSError, ValueError, KeyError):
        return None
    if len(ids) != len(hashes) or not ids[0]:
        return None
    return Counts(dict(zip(ids, hashes)), meta["docs"], term_df, stem_df,
                  meta["dialogue_tokens"], meta["base"], meta["changes"])


def _read_df(folder: Path, name: str) -> Counter:
    words = (folder / f"{name}.txt").read_text(encoding="utf-8").split("\n")
    df = np.load(folder / f"{name}.npy")
    if len(words) != len(df):
        raise ValueError(f"{name}: {len(words)} words, {len(df)} counts")
    return Counter(dict(zip(words, df.tolist())))


def _write(folder: Path, counts: Counts) -> None:
    """Write the counts next to the old ones, then swap folders: a reader sees the old counts
    or the new ones, never half of each."""
    staging = folder.with_name(f"{folder.name}.{os.getpid()}.part")
    staging.mkdir(parents=True, exist_ok=True)
    (staging / "ids.txt").write_text("\n".join(counts.covers), encoding="utf-8")
    (staging / "hashes.txt").write_text("\n".join(counts.covers.values()), encoding="utf-8")
    for name, df in (("terms", counts.term_df), ("stems", counts.stem_df)):
        (staging / f"{name}.txt").write_text("\n".join(df), encoding="utf-8")
        np.save(staging / f"{name}.npy", np.fromiter(df.values(), dtype=np.int64, count=len(df)))
    meta = {"docs": counts.docs, "dialogue_tokens": counts.dialogue_tokens,
            "base": counts.base, "changes": counts.changes, "format": FORMAT}
    (staging / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    old = folder.with_name(f"{folder.name}.{os.getpid()}.old")
    try:
        if folder.exists():
            folder.rename(old)
        staging.rename(folder)
    except OSError:  # another process swapped its counts in meanwhile: keep those
        pass
    for leftover in (old, staging):
        shutil.rmtree(leftover, ignore_errors=True)
