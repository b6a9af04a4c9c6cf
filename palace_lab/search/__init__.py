"""Search: modes (pure and cross-layer), fusion, filters and the engine that runs them."""

from palace_lab.search.engine import Answer, SearchEngine
from palace_lab.search.filters import Filters
from palace_lab.search.modes import (DEFAULT_MODE, PRESETS, FusedMode, PureMode, list_modes,
                                     parse_mode)
from palace_lab.search.readiness import Readiness

__all__ = ["DEFAULT_MODE", "PRESETS", "Answer", "Filters", "FusedMode", "Readiness", "PureMode",
           "SearchEngine", "list_modes", "parse_mode"]
