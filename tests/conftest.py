"""Shared fixtures. Every test runs with its state in a temporary folder and offline."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SAMPLE_DATA = Path(__file__).resolve().parents[1] / "sample_data"
# Tokenizer files are decompressed once per test session, not once per test.
_SESSION_CACHE = None


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch, tmp_path_factory):
    """No test touches the network or the user's home."""
    global _SESSION_CACHE
    if _SESSION_CACHE is None:
        _SESSION_CACHE = tmp_path_factory.mktemp("palace_cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PALACE_LAB_CACHE_DIR", str(_SESSION_CACHE))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(_SESSION_CACHE / "tiktoken"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("PALACE_LAB_NO_PROGRESS", "1")
    monkeypatch.delenv("PALACE_LAB_DB", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    yield


@pytest.fixture
def real_exports() -> Path:
    """Real coding-agent transcripts: ../shared/real_exports, else ours in the same formats
    (tests/fixtures/real_like); :func:`real_facts` states what each set holds."""
    from real_transcripts import transcripts

    return transcripts()[0]


@pytest.fixture
def real_facts() -> dict:
    """The counts, requests and queries a test pins, for the set :func:`real_exports` gives."""
    from real_transcripts import transcripts

    return transcripts()[1]


@pytest.fixture
def palace(tmp_path):
    from palace_lab.store import Palace

    p = Palace.open(tmp_path / "palace.db")
    yield p
    p.close()


def write_jsonl(path: Path, records: list) -> Path:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def write_zip(path: Path, members: dict) -> Path:
    """An export ZIP made in the test: ``{member name: bytes or text}``."""
    import zipfile

    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


os.environ.setdefault("HF_HUB_OFFLINE", "1")
