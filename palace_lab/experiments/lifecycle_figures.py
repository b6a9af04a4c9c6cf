"""The Memory lifecycle page's slow figures, kept in the figures cache like the other pages'.

At 50,000 exchanges two tabs each took about 45 s on first opening:

- Consolidation replays the consolidation schedule over the palace's whole timeline
  (:func:`palace_lab.lifecycle.timeline.replay`): :func:`replay_snapshots` keeps the snapshots
  of each (step, days after the last exchange, schedule), keyed by the palace's content and
  the code that replays;
- Validation measures the vocabulary of every card of every version
  (:func:`palace_lab.lifecycle.vocabulary.vocabulary_report`): :func:`vocabulary_rows` keeps
  the rows of each set of versions, keyed by the exchanges' and every version's cards'
  content and the code that measures.

:func:`prepare` makes both ahead, for the settings the page opens on (:data:`REPLAY_STEP`,
:data:`REPLAY_EXTEND_DAYS`, the default :class:`~palace_lab.lifecycle.consolidate.Schedule`;
every version that has cards); ``palace-lab index`` calls it through
:func:`palace_lab.experiments.page_figures.prepare_palace`. Other settings are computed once, then
kept too. The figures are the full computation, never a sample.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from palace_lab.index.cache import cards_fingerprint
from palace_lab.lifecycle import vocabulary
from palace_lab.lifecycle.consolidate import Schedule, Snapshot
from palace_lab.lifecycle.timeline import replay
from palace_lab.model import content_hash
from palace_lab.store import figures
from palace_lab.store.memo import code_version

if TYPE_CHECKING:
    from palace_lab.store import Palace

REPLAY_STEP = "7D"  # the Consolidation tab's first settings
REPLAY_EXTEND_DAYS = 30
REPLAY_CODE = ("palace_lab.lifecycle.timeline", "palace_lab.lifecycle.consolidate",
               "palace_lab.lifecycle.levels", "palace_lab.lifecycle.units",
               "palace_lab.lifecycle.importance", "palace_lab.ingest.traffic.toolcalls",
               "palace_lab.tokens")
VOCABULARY_CODE = ("palace_lab.lifecycle.vocabulary", "palace_lab.lifecycle.validate",
                   "palace_lab.lifecycle.facts", "palace_lab.lifecycle.units",
                   "palace_lab.distill.terms")


def _snapshot_dict(s: Snapshot) -> dict:
    return {"at": s.at.isoformat(), "counts": s.counts, "tokens": s.tokens,
            "archived": s.archived, "profile": s.profile, "events": list(s.events)}


def _snapshot(d: dict) -> Snapshot:
    def levels(counts: dict) -> dict[int, int]:
        return {int(level): n for level, n in counts.items()}  # JSON keys are strings

    return Snapshot(datetime.fromisoformat(d["at"]), levels(d["counts"]), levels(d["tokens"]),
                    levels(d["archived"]), d["profile"], tuple(d["events"]))


def replay_snapshots(palace: Palace, step: str = REPLAY_STEP,
                     extend_days: int = REPLAY_EXTEND_DAYS,
                     schedule: Schedule | None = None) -> list[Snapshot]:
    """:func:`replay` of the palace's verbatim exchanges with these settings, kept."""
    schedule = schedule or Schedule()

    def compute() -> list[dict]:
        return [_snapshot_dict(s) for s in replay(palace, step=step, extend_days=extend_days,
                                                   schedule=schedule)]

    settings = content_hash(str(step), str(extend_days), repr(schedule))
    key = f"{palace.fingerprint()[:16]}-{settings[:12]}-{code_version(*REPLAY_CODE)}"
    return [_snapshot(d) for d in figures.cached(palace, "replay", key, compute)]


def vocabulary_rows(palace: Palace, versions: Sequence[str]) -> list[dict]:
    """:func:`vocabulary.vocabulary_report` of ``versions`` (one row each), kept."""
    def compute() -> list[dict]:
        return vocabulary.vocabulary_report(palace, list(versions))

    cards = content_hash(*(f"{v}:{cards_fingerprint(palace, v)}" for v in versions))
    key = f"{palace.fingerprint()[:16]}-{cards[:16]}-{code_version(*VOCABULARY_CODE)}"
    return figures.cached(palace, "vocabulary", key, compute)


def carded_versions(palace: Palace) -> tuple[str, ...]:
    """The versions the Validation tab measures: every one that has cards, in store order."""
    return tuple(v["version"] for v in palace.distiller_versions() if v["cards"])


def prepare(palace: Palace) -> dict[str, float]:
    """Make (or find) both figures for the page's first settings; seconds each took."""
    took = {}
    for kind, make in (("replay", lambda: replay_snapshots(palace)),
                       ("vocabulary", lambda: vocabulary_rows(palace, carded_versions(palace)))):
        start = time.perf_counter()
        make()
        took[kind] = round(time.perf_counter() - start, 3)
    return took
