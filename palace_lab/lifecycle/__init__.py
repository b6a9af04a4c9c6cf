"""The memory lifecycle: compress, tag, consolidate, validate and pack an agent's memory.

Concepts (the memory-compression chapter, docs/paper.md), one module each:

- :mod:`~palace_lab.lifecycle.compress`: session compression, extractive and abstractive.
- :mod:`~palace_lab.lifecycle.importance`: importance tags (critical/high/medium/low ×
  decision/fact/preference/context) by stated rules.
- :mod:`~palace_lab.lifecycle.consolidate`: L0 → L1 → L2 → L3 consolidation with a schedule,
  archiving never deleting, replayable over the palace's timeline.
- :mod:`~palace_lab.lifecycle.validate` and :mod:`~palace_lab.lifecycle.vocabulary`: which
  facts a compressed text kept, dropped or distorted; surviving vocabulary per distiller.
- :mod:`~palace_lab.lifecycle.pack`: memory packs under a hard token budget.

Reading an exchange's tool traffic (the tool-call block, shell commands, checks) is ingest's:
:mod:`palace_lab.ingest.traffic`.

Names are imported lazily (importing a submodule such as ``pack`` stays light).
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "compress_session": "compress", "compress_exchanges": "compress",
    "SessionCompression": "compress", "SOURCE_FIGURES": "compress",
    "session_report": "report", "compress_all": "report",
    "tag": "importance", "Tag": "importance",
    "Schedule": "consolidate", "Memory": "consolidate", "MemoryItem": "consolidate",
    "Snapshot": "consolidate", "replay": "timeline", "raw_memories": "timeline",
    "validate": "validate", "extract_facts": "validate", "Validation": "validate",
    "vocabulary_report": "vocabulary",
    "build_pack": "pack", "Pack": "pack", "PackItem": "pack",
    "judge_preservation": "remote", "PalaceCache": "remote",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
