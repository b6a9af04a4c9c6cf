"""The report: the 11x story of one palace in a single offline HTML file, for stakeholders.

Someone who never installs the lab opens one file, on a laptop or a phone, often offline, and
reads what this palace measured: how much smaller the cards are than the exchanges (the lab's
one headline definition, the paper's 11x beside it), the 1,000-exchange chart, the retrieval the
cards keep on graded questions (with 95% intervals and the paired test, or a note saying there
is no graded set), five typical cards beside their exchanges, the rooms, the palace's span, what
made the figures and what they do not say.

- :mod:`.facts` gathers the figures (aggregates only) from the lab's own functions;
- :mod:`.examples` picks the five typical cards;
- :mod:`.sections` and :mod:`.about` write the sections, every text through the redactor;
- :mod:`.page` assembles the document (Plotly inlined, deterministic but for one timestamp).

``palace-lab report`` and the Overview's download button both call :func:`build_report`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.files import write_atomic
from palace_lab.report.facts import ReportFacts, gather

if TYPE_CHECKING:
    from palace_lab.store import Palace

__all__ = ["ReportFacts", "build_report", "gather", "write_report"]


def build_report(palace: Palace, *, title: str | None = None, query_set: str | None = None,
                 distiller: str | None = None, embedder: str = "minilm", compute: bool = True,
                 generated: datetime | None = None,
                 progress: Callable[[str, int, int], None] | None = None) -> bytes:
    """The report of ``palace`` as UTF-8 bytes. ``compute``: measure the retrieval figures when
    they are not cached (builds the search indexes); otherwise the report says they are not
    computed yet. ``generated``: the one timestamp (default: now)."""
    from palace_lab.report.page import render

    facts = gather(palace, title=title, query_set=query_set, distiller=distiller,
                   embedder=embedder, compute=compute, progress=progress)
    # A lone surrogate from some source cannot be UTF-8: it becomes "?" rather than an error.
    return render(facts, generated=generated).encode("utf-8", "replace")


def write_report(palace: Palace, out: str | Path, **options) -> int:
    """Write :func:`build_report` to ``out`` (atomically: a reader never sees half a file);
    returns its size in bytes."""
    target = Path(out).expanduser()
    made = build_report(palace, **options)
    write_atomic(target, made)
    return len(made)
