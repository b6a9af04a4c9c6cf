"""Time left for a long step (embedding a layer, building an index), from its own throughput.

A step reports ``(done, total)`` as it goes. The rate is measured from the step's first report
to its latest, so it is this machine's speed on this palace's texts, not a figure from
elsewhere; until a first part is done there is no rate and the note says it is measuring.
Embedding goes longest text first, so an early rate is the slowest: the time left it gives errs
long.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def duration(seconds: float) -> str:
    """``"about 40 s"``, ``"about 3 min"``: rounded, as a person reads a wait."""
    if seconds < 60:
        return f"about {max(5, 5 * round(seconds / 5)):.0f} s"
    return f"about {round(seconds / 60):.0f} min"


class Throughput:
    """Per step name, the first ``(time, done)`` seen; :meth:`note` turns the latest report
    into "12/263 · about 40 s left (6 texts/s)"."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._first: dict[str, tuple[float, int]] = {}

    def rate(self, step: str, done: int) -> float | None:
        """Items a second since the step's first report (None before any progress)."""
        now = self.clock()
        start, done0 = self._first.setdefault(step, (now, done))
        if done <= done0 or now <= start:
            return None
        return (done - done0) / (now - start)

    def note(self, step: str, done: int, total: int, unit: str = "texts") -> str:
        rate = self.rate(step, done)
        head = f"{step}: {done:,}/{total:,}"
        if done >= total:
            return head
        if rate is None:
            return f"{head} · measuring the speed on the first part…"
        return f"{head} · {duration((total - done) / rate)} left ({rate:,.1f} {unit}/s)"
