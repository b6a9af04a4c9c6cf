"""One fusion registry (search.fusion.FUSIONS) owns names, defaults and dispatch: the mode
parser and :func:`fuse` both read it, so a method registered once is parsed and run."""

from __future__ import annotations

import pytest

from palace_lab.errors import InputError
from palace_lab.search import fusion
from palace_lab.search.modes import parse_mode

A, B = {"x": 3.0, "y": 2.0, "z": 1.0}, {"z": 9.0, "y": 1.0}


def test_a_method_registered_once_is_parsed_and_dispatched(monkeypatch):
    def top(runs, weights, *, n):
        return {doc: weights[i] for i, run in enumerate(runs) for doc in list(run)[:int(n)]}

    monkeypatch.setitem(fusion.FUSIONS, "top", fusion.Fusion(top, {"n": 1.0}, True, "first docs"))
    mode = parse_mode("top(bm25:verbatim=0.25,hnsw:core)")
    assert mode.weights == (0.25, 0.75) and dict(mode.params) == {"n": 1.0}
    assert fusion.fuse("top", [A, B], weights=mode.weights, **dict(mode.params)) == \
        {"x": 0.25, "z": 0.75}


def test_defaults_come_from_the_registry_and_foreign_parameters_are_ignored():
    # rrf by hand, k = 60: x 1/61; y 1/62 + 1/62; z 1/63 + 1/61
    assert fusion.fuse("rrf", [A, B], norm="zscore") == pytest.approx(
        {"x": 1 / 61, "y": 2 / 62, "z": 1 / 63 + 1 / 61})
    assert fusion.fuse("combmnz", [A, B], k=5) == fusion.combmnz([A, B], norm="p95")
    assert fusion.fuse("wsum", [A, B], weights=[1, 0], norm=None) == fusion.wsum([A, B], [1, 0])
    with pytest.raises(InputError, match="valid fusions: rrf, wrrf, wsum, combmnz"):
        fusion.fuse("borda", [A, B])
