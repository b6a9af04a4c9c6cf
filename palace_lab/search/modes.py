"""Search modes: a tiny string language for what to search and how to fuse.

Grammar (whitespace ignored)::

    mode   := PRESET | pure | fused
    pure   := MECHANISM ":" LAYER                      e.g. bm25:verbatim, hnsw:core
    fused  := FUSION "(" run ("," run)+ [";" param ("," param)*] ")"
    run    := pure ["=" WEIGHT]                        weights only for wrrf and wsum
    param  := NAME "=" VALUE                           rrf: k; wsum/combmnz: norm

- ``rrf(...;k=60)``: reciprocal rank fusion, k = 60 by default;
- ``wrrf(a=0.5,b=0.3,c=0.2;k=60)``: weighted RRF, each run's 1/(k + rank) times its weight;
- ``wsum(a=0.3,b=0.7;norm=minmax)``: weighted sum of scores normalised per run, min-max by
  default (``norm=p95`` or ``zscore`` optional); runs without a weight share the rest equally;
- ``combmnz(...;norm=p95)``: CombMNZ over scores divided by each run's 95th percentile, as the
  paper author's code.

Presets (:data:`PRESETS`) are stable names for mode strings; any mode string works wherever a
name does, so the paper's whole configuration space can be swept. :func:`parse_mode` returns a
:class:`PureMode` or :class:`FusedMode`, whose ``str()`` is the canonical mode string.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from palace_lab.errors import SearchError
from palace_lab.index.mechanisms import MECHANISMS
from palace_lab.index.layers import LAYERS
from palace_lab.search.fusion import FUSIONS, NORMALISERS

PRESETS: dict[str, tuple[str, str]] = {
    "hybrid-rrf": ("rrf(bm25:verbatim,hnsw:core;k=60)",
                   "the paper's best pairing (verbatim BM25 + distilled HNSW), fused by RRF"),
    "hybrid-combmnz": ("combmnz(bm25:verbatim,hnsw:core;norm=p95)",
                       "the paper's best pairing fused as the author's code: CombMNZ over p95"),
    "hybrid-wsum": ("wsum(bm25:verbatim=0.3,hnsw:core=0.7;norm=minmax)",
                    "the paper's best pairing, weighted sum 0.3/0.7 of min-max scores"),
    "hybrid-rrf-exact": ("rrf(bm25:verbatim,exact:core;k=60)",
                         "verbatim BM25 + exact vector search on the distilled core, RRF"),
    "verbatim-fusion": ("rrf(bm25:verbatim,hnsw:verbatim;k=60)",
                        "verbatim only: BM25 + HNSW on the whole exchange, RRF"),
    "distilled-fusion": ("rrf(bm25:core,hnsw:core;k=60)",
                         "distilled only: BM25 + HNSW on the core, RRF"),
    "all-layers-rrf": ("rrf(bm25:verbatim,hnsw:verbatim,bm25:all,hnsw:all;k=60)",
                       "both mechanisms on the verbatim text and on the whole card, RRF"),
    "hybrid-rooms-rrf": ("rrf(bm25:verbatim,hnsw:core+rooms;k=60)",
                         "verbatim BM25 + HNSW on the core with its rooms, RRF"),
    "hybrid-files-rrf": ("rrf(bm25:verbatim,bm25:core+files,hnsw:core;k=60)",
                         "verbatim BM25 + BM25 on core and files + distilled HNSW, RRF"),
    "hybrid-wrrf": ("wrrf(bm25:verbatim=0.5,hnsw:verbatim=0.2,bm25:core+keywords=0.3;k=10)",
                    "the default: BM25 and vectors on the verbatim text with BM25 on the card's "
                    "core + keywords, weighted RRF (chosen on three dev sets: "
                    "benchmarks/choose_default.py)"),
    "hybrid-wrrf-light": ("wrrf(bm25:verbatim=0.5,bm25:core+keywords=0.2,hnsw:core=0.15,"
                          "hnsw:core+keywords=0.15;k=2)",
                          "the default without the verbatim vectors (no embedding of whole "
                          "exchanges: for a large palace whose verbatim layer is not embedded)"),
    "card-fusion": ("wrrf(bm25:core+keywords=0.75,hnsw:core+keywords=0.25;k=2)",
                    "distilled only: BM25 and HNSW on the card's core + keywords, weighted RRF"),
}
# The mode `palace-lab search`, the app and the library use when none is named. Chosen on the
# public dev sets and the sample by leave-one-set-out selection over a weight grid (docs/results.md,
# "Retrieval on public benchmarks"); `modes --json` marks it with "default": true.
DEFAULT_MODE = "hybrid-wrrf"


@dataclass(frozen=True)
class PureMode:
    mechanism: str
    layer: str

    def __str__(self) -> str:
        return f"{self.mechanism}:{self.layer}"

    @property
    def runs(self) -> tuple["PureMode", ...]:
        return (self,)


@dataclass(frozen=True)
class FusedMode:
    fusion: str
    runs: tuple[PureMode, ...]
    weights: tuple[float, ...] | None
    params: tuple[tuple[str, object], ...]

    def __str__(self) -> str:
        if self.weights is not None:
            runs = ",".join(f"{r}={_num(w)}" for r, w in zip(self.runs, self.weights))
        else:
            runs = ",".join(str(r) for r in self.runs)
        params = ",".join(f"{k}={_num(v)}" for k, v in self.params)
        return f"{self.fusion}({runs};{params})" if params else f"{self.fusion}({runs})"

    def param(self, name: str):
        return dict(self.params)[name]


Mode = PureMode | FusedMode


def _num(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _valid_names() -> str:
    return (f"valid mechanisms: {', '.join(MECHANISMS)}; valid layers: {', '.join(LAYERS)}; "
            f"valid fusions: {', '.join(FUSIONS)}; presets: {', '.join(PRESETS)}")


def parse_mode(text: str) -> Mode:
    """A mode from a preset name or a mode string; :class:`SearchError` lists what is valid."""
    if not isinstance(text, str) or not text.strip():
        raise SearchError(f"empty mode; {_valid_names()}")
    compact = re.sub(r"\s+", "", text)
    if compact in PRESETS:
        compact = PRESETS[compact][0]
    if "(" in compact or ")" in compact:
        return _parse_fused(compact, text)
    return _parse_pure(compact, text)


def _parse_pure(compact: str, original: str) -> PureMode:
    mechanism, sep, layer = compact.partition(":")
    if not sep:
        raise SearchError(f"unknown mode {original!r}: expected a preset, MECHANISM:LAYER or "
                          f"FUSION(run,run,...); {_valid_names()}")
    if mechanism not in MECHANISMS:
        raise SearchError(f"unknown mechanism {mechanism!r} in mode {original!r}; "
                          f"valid mechanisms: {', '.join(MECHANISMS)}")
    if layer not in LAYERS:
        raise SearchError(f"unknown layer {layer!r} in mode {original!r}; "
                          f"valid layers: {', '.join(LAYERS)}")
    return PureMode(mechanism, layer)


def _parse_fused(compact: str, original: str) -> FusedMode:
    match = re.fullmatch(r"([a-z0-9_]+)\(([^()]*)\)", compact)
    if not match:
        raise SearchError(f"malformed mode {original!r}: expected FUSION(run,run,...[;param=value])"
                          f" with no nesting; {_valid_names()}")
    fusion, body = match.groups()
    if fusion not in FUSIONS:
        raise SearchError(f"unknown fusion {fusion!r} in mode {original!r}; "
                          f"valid fusions: {', '.join(FUSIONS)}")
    run_part, _, param_part = body.partition(";")
    runs, weights = _parse_runs(fusion, run_part, original)
    params = _parse_params(fusion, param_part, original)
    return FusedMode(fusion, runs, weights, params)


def _parse_runs(fusion: str, text: str, original: str):
    items = [item for item in text.split(",") if item]
    if len(items) < 2:
        raise SearchError(f"fusion {fusion!r} needs two or more runs in mode {original!r}")
    runs, given = [], []
    for item in items:
        name, eq, weight = item.partition("=")
        runs.append(_parse_pure(name, original))
        given.append(_parse_weight(fusion, weight, original) if eq else None)
    if len(set(runs)) != len(runs):
        raise SearchError(f"a run appears twice in mode {original!r}")
    if not FUSIONS[fusion].weights:
        return tuple(runs), None
    return tuple(runs), _complete_weights(given, original)


def _parse_weight(fusion: str, text: str, original: str) -> float:
    if not FUSIONS[fusion].weights:
        raise SearchError(f"fusion {fusion!r} takes no run weights (mode {original!r}); "
                          "use wsum(run=weight,...)")
    try:
        value = float(text)
    except ValueError:
        raise SearchError(f"weight {text!r} is not a number in mode {original!r}") from None
    if not math.isfinite(value):
        raise SearchError(f"weight {text!r} is not a finite number in mode {original!r}")
    if value < 0:
        raise SearchError(f"weight {text!r} is negative in mode {original!r}")
    return value


def _complete_weights(given: list[float | None], original: str) -> tuple[float, ...]:
    """Runs without a weight share what the given weights leave of 1 (all equal if none given)."""
    missing = given.count(None)
    if not missing and not any(given):
        raise SearchError(f"every weight is 0 in mode {original!r}: nothing would be ranked")
    if not missing:
        return tuple(given)  # type: ignore[arg-type]
    rest = 1.0 - sum(w for w in given if w is not None)
    if rest < 0:
        raise SearchError(f"weights in mode {original!r} sum to more than 1 "
                          "with runs left unweighted")
    return tuple(rest / missing if w is None else w for w in given)


def _parse_params(fusion: str, text: str, original: str) -> tuple[tuple[str, object], ...]:
    params = dict(FUSIONS[fusion].params)
    for item in (i for i in text.split(",") if i):
        name, eq, value = item.partition("=")
        if not eq or name not in params:
            valid = ", ".join(params) or "none"
            raise SearchError(f"unknown parameter {item!r} for {fusion} in mode {original!r}; "
                              f"valid parameters: {valid}")
        if name == "norm" and value not in NORMALISERS:
            raise SearchError(f"unknown normaliser {value!r} in mode {original!r}; "
                              f"valid normalisers: {', '.join(NORMALISERS)}")
        params[name] = value if name == "norm" else _parse_k(value, original)
    return tuple(params.items())


def _parse_k(value: str, original: str) -> float:
    try:
        k = float(value)
    except ValueError:
        raise SearchError(f"rrf k {value!r} is not a number in mode {original!r}") from None
    if not math.isfinite(k):
        raise SearchError(f"rrf k {value!r} is not a finite number in mode {original!r}")
    if k < 0:
        raise SearchError(f"rrf k must be ≥ 0 in mode {original!r}")
    return k


def _describe(mode: Mode) -> dict:
    layers = list(dict.fromkeys(r.layer for r in mode.runs))
    mechanisms = list(dict.fromkeys(r.mechanism for r in mode.runs))
    return {"kind": "pure" if isinstance(mode, PureMode) else "cross",
            "layers": layers, "mechanisms": mechanisms, "mode": str(mode)}


def list_modes() -> list[dict]:
    """Every pure mode (mechanism × layer), then every preset, as plain dicts.

    Keys: name, kind ("pure" | "cross": a fusion of runs), layers, mechanisms, description,
    mode (the canonical mode string the name stands for) and default (true for the one mode
    used when none is named, :data:`DEFAULT_MODE`).
    """
    out = []
    for layer, spec in LAYERS.items():
        for mechanism, mech in MECHANISMS.items():
            mode = PureMode(mechanism, layer)
            description = f"{mech.description} on the {layer} layer ({spec.description})"
            out.append({"name": str(mode), **_describe(mode), "description": description,
                        "default": False})
    for name, (text, description) in PRESETS.items():
        out.append({"name": name, **_describe(parse_mode(text)), "description": description,
                    "default": name == DEFAULT_MODE})
    return out


def mode_names() -> list[str]:
    return [m["name"] for m in list_modes()]


def parse_mode_list(spec: str) -> list[str]:
    """The modes a comma list names: ``all`` (or nothing) every mode of :func:`list_modes`,
    ``presets`` the cross-layer ones, else each item (commas inside a fusion's parentheses do
    not split it). The items are not parsed here: the engine says which it cannot run."""
    if spec in ("all", ""):
        return mode_names()
    if spec == "presets":
        return [m["name"] for m in list_modes() if m["kind"] == "cross"]
    return [m.strip() for m in _split_top_level(spec) if m.strip()]


def _split_top_level(spec: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in spec:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return parts + [current]
