"""What a mode can run right now: the runs whose index is missing and the mode used instead.

A vector run (``hnsw:LAYER``, ``exact:LAYER``) is *missing* when its index is neither loaded
nor cached and building it would mean embedding more texts than the engine may embed inside
one search (:data:`INLINE_EMBED_LIMIT`): at 50,000 exchanges the verbatim layer alone takes
tens of minutes to embed, so a search answers with what exists instead of blocking. BM25 runs
are never missing (they build in seconds).

Substitution, the same for every fusion:

- a fused mode keeps its other runs, each with its own weight and the fusion's parameters
  (so the documents those runs rank are ranked exactly as before, only without the missing
  run's votes); a single run left runs as that pure mode;
- when no run is left (every run was a vector run), or the mode was a pure vector mode, each
  missing run is replaced by BM25 over its layer.

With every index built nothing is missing and the mode runs unchanged.

*Unbuilt graph*: an HNSW run whose vectors are all stored but whose graph was never built (a
palace copied without its ``.indexes`` folder, an index cache cleared) on a layer of more than
:data:`INLINE_GRAPH_ROWS` exchanges is searched exactly instead (``exact:LAYER``: the same
stored vectors, brute force, so it finds at least what the graph would), in the same place of
the mode with the same weight: building the graph inline took 13 s at 50,200 exchanges on 2
idle cores (41 s loaded), the exact index the time to read the vectors (under a second).
``palace-lab index`` (or a search with ``--build``) builds the graph.

*Behind*: an HNSW run whose index is out of date (the palace changed since it was built) and
would have to embed more than :data:`BEHIND_EMBED_LIMIT` new texts is not left out but searched
on its previous index (:meth:`palace_lab.index.IndexSet.stale`: rows of removed or changed
exchanges blanked, new exchanges not in it yet); the mode is otherwise unchanged, and the BM25
runs (incremental deltas, :mod:`palace_lab.index.bm25_delta`) find the new exchanges.
"""

from __future__ import annotations

from dataclasses import dataclass

from palace_lab.search.modes import FusedMode, Mode, PureMode

# Texts a search may embed before answering (≈ 15 s of long texts on 2 cores, 3 s of cards).
INLINE_EMBED_LIMIT = 500
# Texts a search may embed to bring an existing HNSW index up to date; beyond that the run
# searches its previous index (*behind*: removed rows blanked, new rows not in it yet) and
# the other runs (BM25 deltas) find the new exchanges. 100 new verbatim texts take 4-11 s to
# embed on 2 loaded cores, more than the whole +100 budget.
BEHIND_EMBED_LIMIT = 32
# Exchanges above which an HNSW graph whose vectors are all stored is not built inside a search
# (≈ 5 s of graph building on 2 cores) but its vectors searched exactly (*unbuilt graph*).
INLINE_GRAPH_ROWS = 20_000


@dataclass(frozen=True)
class Readiness:
    """What a search of one mode can run right now. ``asked``: the mode requested; ``used``: the mode run; ``missing``: runs left out, each
    with how many texts its layer still has to embed (``pending``)."""

    asked: Mode
    used: Mode
    missing: tuple[PureMode, ...] = ()
    pending: tuple[int, ...] = ()
    behind: tuple[PureMode, ...] = ()  # runs searched on their previous index
    behind_pending: tuple[int, ...] = ()  # texts each still has to embed
    exact: tuple[PureMode, ...] = ()  # unbuilt graphs, their stored vectors searched exactly

    @property
    def degraded(self) -> bool:
        return bool(self.missing or self.behind or self.exact)

    def note(self) -> str:
        """One line for a person: what was missing and what ran instead ("" when nothing)."""
        notes = []
        if self.missing:
            parts = ", ".join(f"{run} ({n} texts to embed)" for run, n in zip(self.missing,
                                                                              self.pending))
            notes.append(f"not built yet: {parts}; searched {self.used} instead")
        if self.behind:
            parts = ", ".join(f"{run} ({n} new texts)" for run, n in zip(self.behind,
                                                                         self.behind_pending))
            notes.append(f"behind: {parts}; searched on its previous index (new exchanges "
                         "are found by the other runs)")
        if self.exact:
            parts = ", ".join(str(r) for r in self.exact)
            notes.append(f"graph not built yet: {parts}; searched its stored vectors exactly "
                         f"({', '.join(str(exact_run(r)) for r in self.exact)}) instead")
        return "; ".join(notes)

    def to_dict(self) -> dict:
        return {"asked": str(self.asked), "used": str(self.used),
                "missing": [str(r) for r in self.missing], "pending": list(self.pending),
                "behind": [str(r) for r in self.behind], "exact": [str(r) for r in self.exact]}


def exact_run(run: PureMode) -> PureMode:
    return PureMode("exact", run.layer)


def searched_exactly(mode: Mode, graphs: tuple[PureMode, ...]) -> Mode:
    """``mode`` with each of these HNSW runs replaced by the exact run of its layer (same
    place, same weight): the *unbuilt graph* substitution."""
    if not graphs:
        return mode
    if isinstance(mode, PureMode):
        return exact_run(mode) if mode in graphs else mode
    runs = tuple(exact_run(r) if r in graphs else r for r in mode.runs)
    return FusedMode(mode.fusion, runs, mode.weights, mode.params)


def substitute(mode: Mode, missing: tuple[PureMode, ...]) -> Mode:
    """``mode`` without the ``missing`` runs (see the module docstring)."""
    if not missing:
        return mode
    lexical = tuple(dict.fromkeys(PureMode("bm25", r.layer) for r in missing))
    if isinstance(mode, PureMode):
        return lexical[0]
    kept = [i for i, run in enumerate(mode.runs) if run not in missing]
    if not kept:
        return _with_runs(mode, lexical, None)
    weights = None if mode.weights is None else tuple(mode.weights[i] for i in kept)
    return _with_runs(mode, tuple(mode.runs[i] for i in kept), weights)


def _with_runs(mode: FusedMode, runs: tuple[PureMode, ...], weights) -> Mode:
    if len(runs) == 1:
        return runs[0]
    if mode.weights is not None and weights is None:
        weights = tuple(1.0 / len(runs) for _ in runs)
    return FusedMode(mode.fusion, runs, weights, mode.params)
