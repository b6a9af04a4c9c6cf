"""Ingest: export files → conversations and exchanges in the palace.

The entry point is :mod:`.pipeline` (``ingest_paths``: find, detect, parse, segment, store);
each source format has its parser module (``claude_code``, ``codex``, ``chatgpt``…, registered
in ``pipeline.PARSER_MODULES``); :mod:`.segment` cuts conversations into exchanges and
:mod:`.traffic` reads an exchange's tool traffic back. The names below are the public API.
"""

from __future__ import annotations

from palace_lab.ingest.discover import (
    CANDIDATE_SUFFIXES, discover, discover_sources, printable_path, quietly,
)
from palace_lab.ingest.pipeline import (
    FORMATS, OWN_PROMPT_MARKER, PARSER_MODULES, detect_format, get_parser, ingest_file,
    ingest_one, ingest_paths,
)

__all__ = ["CANDIDATE_SUFFIXES", "FORMATS", "OWN_PROMPT_MARKER", "PARSER_MODULES",
           "detect_format", "discover", "discover_sources", "get_parser", "ingest_file",
           "ingest_one", "ingest_paths", "printable_path", "quietly"]
