"""The text rules' one home: the variants keep the words each step dropped before (the golden
digests below were taken from the code before the rules moved here), and broken characters
are mended the same way wherever text enters."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from palace_lab.text import words
from palace_lab.text.broken import is_broken, mend

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data"
REAL_CODEX = ROOT.parent / "shared" / "real_exports" / "codex"

# sha256[:16] over json lines of each rule's output per exchange (sorted verbatim texts),
# computed with the code before the text rules moved (commit 3585ea9).
GOLDEN = {
    "sample": {"bm25": "0bfa6f04375c4811", "terms": "56faabb9c4a67f0d",
               "content_words": "fe920d6a9f577b7f", "known_item": "5c03462ade2038df",
               "query_terms": "1c7902abde0e0874", "quantity_key": "6cc7e88c1bd14dfd"},
    "real": {"bm25": "da395227b8208358", "terms": "f4f57a882a7772f6",
             "content_words": "51307451e3225c06", "known_item": "00c3ff883d60fee0",
             "query_terms": "ce5d3c2d025f618a", "quantity_key": "2f9c11eefa5c2f29"},
}


def _texts(tmp_path, paths) -> list[str]:
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    with Palace.open(tmp_path / "g.db") as palace:
        ingest_paths(palace, paths)
        return sorted(e.verbatim for e in palace.exchanges())


def _digest(items) -> str:
    h = hashlib.sha256()
    for item in items:
        h.update(json.dumps(item).encode("utf-8", "surrogatepass") + b"\n")
    return h.hexdigest()[:16]


def _rules() -> dict:
    from palace_lab.text.content import content_words
    from palace_lab.distill.terms import terms
    from palace_lab.evaluate.known_item import _content_words
    from palace_lab.text.tokenize import Tokenizer
    from palace_lab.lifecycle.facts import quantity_key
    from palace_lab.store.contents import query_terms

    return {"bm25": Tokenizer(), "terms": terms, "content_words": content_words,
            "known_item": _content_words, "query_terms": query_terms,
            "quantity_key": lambda t: [quantity_key(line, len(line)) for line in t.splitlines()]}


@pytest.mark.parametrize("corpus", ["sample", "real"])
def test_every_step_reads_the_same_words_as_before(tmp_path, corpus):
    if corpus == "sample":
        paths = [SAMPLE / "claude_code", SAMPLE / "codex", SAMPLE / "chatgpt"]
    else:
        if not REAL_CODEX.is_dir():
            pytest.skip(f"real exports not found at {REAL_CODEX} (../shared/real_exports)")
        paths = [sorted(REAL_CODEX.glob("*.jsonl"))[0]]
    texts = _texts(tmp_path, paths)
    got = {name: _digest(rule(t) for t in texts) for name, rule in _rules().items()}
    assert got == GOLDEN[corpus]


def test_the_variants_differ_where_their_comments_say():
    assert "check" in words.STOPWORDS and "check" not in words.QUERY_STOPWORDS
    assert "dont" in words.REQUEST_STOPWORDS and "dont" not in words.STOPWORDS
    assert "set" in words.FACT_STOPWORDS and "their" in words.QUERY_STOPWORDS
    assert words.bm25_stopwords() >= {"the", "and", "is"} and "do" not in words.bm25_stopwords()
    assert words.WORD_RUN.findall("continue-on-error") == ["continue", "on", "error"]
    assert words.QUERY_WORD.findall("src/app.py it's a:b") == ["src/app.py", "it's", "a:b"]


def test_broken_characters_are_mended_and_nothing_else_changes():
    assert mend("pool \ud83d timeout") == "pool \ufffd timeout"
    assert mend("café 🎉") == "café 🎉" and is_broken("x\udc80") and not is_broken("ascii")
