"""Broken characters: lone UTF-16 surrogates, text that has no UTF-8 form.

They arrive as half of an emoji cut by some exporter (valid JSON ``"\\ud83d"``) and as bytes
that were not UTF-8 on the command line (Python decodes those to lone surrogates). SQLite and
every UTF-8 writer refuse them, so wherever text enters (ingest, a query, a skip reason) a
broken character becomes U+FFFD and the rest of the text is unchanged.
"""

from __future__ import annotations

import re

BROKEN = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def is_broken(text: str) -> bool:
    """True when ``text`` holds a broken character (ASCII text never does: the fast path)."""
    return not text.isascii() and BROKEN.search(text) is not None


def mend(text: str) -> str:
    """``text`` with every broken character replaced by U+FFFD (the same string when none)."""
    return BROKEN.sub(REPLACEMENT, text) if is_broken(text) else text
