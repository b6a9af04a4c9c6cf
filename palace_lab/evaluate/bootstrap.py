"""Bootstrap intervals over queries: how far a mean of per-query values could move had other
questions of the same kind been asked.

Percentile bootstrap (Efron & Tibshirani 1993, ch. 13): resample the queries with replacement
``n_boot`` times, take the statistic of each resample, report the ``(1 − confidence)/2`` and
``(1 + confidence)/2`` quantiles. Three statistics:

- :func:`mean_interval`: the mean of one mode's per-query values (MRR@10 of a mode);
- :func:`paired_interval`: the mean of paired differences ``a_q − b_q`` over the queries both
  hold (tuned against the default): the same resampled queries on both sides;
- :func:`ratio_interval`: ``mean(a) / mean(b)`` over paired queries (best distilled MRR over best
  verbatim MRR, the paper's "retrieval kept"); a resample whose ``mean(b)`` is 0 is dropped.

Invariants: deterministic for a seed; ``lo <= hi``; with fewer than 2 queries there is no
interval (``None``), stated rather than shown as a zero-width one. numpy is imported inside.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

N_BOOT = 2000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A point estimate with its percentile-bootstrap interval over ``n`` queries."""

    value: float
    lo: float
    hi: float
    n: int
    confidence: float = CONFIDENCE

    def excludes(self, x: float) -> bool:
        """True when ``x`` lies outside the interval (a difference's interval excluding 0)."""
        return x < self.lo or x > self.hi

    def text(self, fmt: str = "{:.3f}") -> str:
        """``0.712 [0.65, 0.77]``: the value and its interval in one string."""
        return f"{fmt.format(self.value)} [{fmt.format(self.lo)}, {fmt.format(self.hi)}]"

    def to_dict(self) -> dict:
        # "level": the JSON key stays as it was written before (the interval's confidence)
        return {"value": self.value, "lo": self.lo, "hi": self.hi, "n": self.n,
                "level": self.confidence}


def _quantiles(samples, confidence: float) -> tuple[float, float]:
    import numpy as np

    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(samples, [tail, 1.0 - tail])
    return float(lo), float(hi)


def _resamples(n: int, n_boot: int, seed: int):
    import numpy as np

    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def mean_interval(values: Sequence[float], *, n_boot: int = N_BOOT,
                  confidence: float = CONFIDENCE,
                  seed: int = 0) -> Interval | None:
    """The mean of ``values`` and its bootstrap interval; None below 2 values."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return None
    means = x[_resamples(len(x), n_boot, seed)].mean(axis=1)
    return Interval(float(x.mean()), *_quantiles(means, confidence), len(x), confidence)


def _paired(a: Mapping[str, float], b: Mapping[str, float]):
    import numpy as np

    qids = sorted(set(a) & set(b))
    return (np.asarray([a[q] for q in qids], dtype=float),
            np.asarray([b[q] for q in qids], dtype=float))


def paired_interval(a: Mapping[str, float], b: Mapping[str, float], *, n_boot: int = N_BOOT,
                    confidence: float = CONFIDENCE, seed: int = 0) -> Interval | None:
    """``mean(a − b)`` over the queries both hold, with its bootstrap interval."""
    x, y = _paired(a, b)
    return mean_interval(list(x - y), n_boot=n_boot, confidence=confidence, seed=seed)


def ratio_interval(a: Mapping[str, float], b: Mapping[str, float], *, n_boot: int = N_BOOT,
                   confidence: float = CONFIDENCE, seed: int = 0) -> Interval | None:
    """``mean(a) / mean(b)`` over paired queries, with its bootstrap interval."""
    x, y = _paired(a, b)
    if len(x) < 2 or y.mean() == 0:
        return None
    idx = _resamples(len(x), n_boot, seed)
    num, den = x[idx].mean(axis=1), y[idx].mean(axis=1)
    ratios = num[den > 0] / den[den > 0]
    return Interval(float(x.mean() / y.mean()), *_quantiles(ratios, confidence), len(x), confidence)
