"""One frozen settings object, built from arguments and environment variables.

Environment: ``PALACE_LAB_DB`` (default palace file), ``PALACE_LAB_CACHE_DIR`` (tokenizer files
and index caches; default ``~/.cache/palace_lab``), ``ANTHROPIC_API_KEY`` and
``ANTHROPIC_BASE_URL`` (opt-in LLM backend). Importing palace_lab never reads the network:
:func:`offline` pins the Hugging Face hub offline before any model is loaded.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


# The embedder of every vector layer when none is named (registry: palace_lab.index.embed):
# MiniLM's int8 ONNX graph embeds a 50,000-exchange history in minutes where PyTorch's float
# MiniLM takes hours, and keeps the default mode's retrieval (docs/search.md).
DEFAULT_EMBEDDER = "minilm-int8"


def offline() -> None:
    """Models ship in packages here; a hub lookup would hang for a minute, then fail."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def cache_dir() -> Path:
    root = os.environ.get("PALACE_LAB_CACHE_DIR") or Path.home() / ".cache" / "palace_lab"
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class Settings:
    db: Path | None = None
    anthropic_api_key: str | None = None
    anthropic_base_url: str | None = None

    @classmethod
    def from_env(cls, *, db: str | Path | None = None) -> "Settings":
        chosen = db or os.environ.get("PALACE_LAB_DB")
        return cls(
            db=Path(chosen).expanduser() if chosen else None,
            anthropic_api_key=os.environ.get("ANTHROPIC_API_KEY") or None,
            anthropic_base_url=os.environ.get("ANTHROPIC_BASE_URL") or None,
        )
