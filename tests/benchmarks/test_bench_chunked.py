"""The chunked verbatim layer of benchmarks/bench_chunked.py: windows and max-over-chunks."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_chunked as bc  # noqa: E402

from palace_lab.index.embed import FakeEmbedder  # noqa: E402


def words(text: str) -> list[tuple[int, int]]:
    """One piece per word: spans by hand, so window sizes are exact."""
    return [m.span() for m in re.finditer(r"\S+", text)]


def test_a_short_text_is_one_window():
    assert bc.chunks("a few words", words) == ["a few words"]
    assert bc.chunks(" ".join(["w"] * 254), words) == [" ".join(["w"] * 254)]


def test_windows_fit_the_limit_and_overlap_as_stated():
    text = " ".join(f"w{i}" for i in range(600))
    windows = bc.chunks(text, words, limit=256, overlap=32)
    tokens = [w.split() for w in windows]
    assert all(len(t) <= 254 for t in tokens)
    assert [t[0] for t in tokens] == ["w0", "w222", "w444"]  # step 254 - 32
    assert all(a[-32:] == b[:32] for a, b in zip(tokens, tokens[1:]))
    assert tokens[-1][-1] == "w599"


def test_max_over_chunks_finds_words_past_the_limit():
    emb = FakeEmbedder()
    filler = " ".join(f"filler{i}" for i in range(300))
    long_one = filler + " postgres migration deadlock"
    other = "postgres notes on indexes " + " ".join(f"other{i}" for i in range(20))
    query = emb.embed_batch(["postgres migration deadlock"])
    truncated = emb.embed_batch([" ".join(long_one.split()[:254]), other])
    assert np.argmax(query @ truncated.T) == 1  # the tail is cut off: the wrong exchange wins
    parts = [bc.chunks(t, words) for t in (long_one, other)]
    vectors = emb.embed_batch([p for ps in parts for p in ps])
    owner = [i for i, ps in enumerate(parts) for _ in ps]
    scores = bc.max_over_chunks(query, vectors, owner)
    assert scores.shape == (1, 2)
    assert np.argmax(scores[0]) == 0
