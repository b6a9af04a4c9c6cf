"""The retrieval commands of ``palace-lab``: modes, search, eval."""

from __future__ import annotations


def add_search_commands(command) -> None:
    """Register the retrieval subcommands on the main parser (wired as modules land)."""
    return None
