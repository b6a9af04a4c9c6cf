"""Rendering rows of results as Markdown, CSV, JSON-safe dicts or a pandas DataFrame.

A table is a list of row dicts plus the column order. Numbers are shown with a fixed number of
decimals in Markdown and at full precision in CSV/JSON; a missing or non-finite value (no test
possible, an infinite effect size) is ``None`` in JSON and ``–`` in Markdown. pandas is
imported only by :func:`to_dataframe`, so rendering Markdown needs nothing beyond the stdlib.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence


def json_safe(value: object) -> object:
    """``value`` with NaN/±inf turned into None, recursively, so ``json.dumps`` stays valid."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def cell(value: object, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, float):
        return f"{value:.{digits}f}" if math.isfinite(value) else ("∞" if value > 0 else "-∞")
    return str(value).replace("|", "\\|")


def markdown(rows: Sequence[Mapping], columns: Sequence[str], *, digits: int = 3,
             headers: Mapping[str, str] | None = None) -> str:
    """A GitHub-flavoured Markdown table; ``headers`` renames columns for display."""
    names = [(headers or {}).get(c, c) for c in columns]
    lines = ["| " + " | ".join(names) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(row.get(c), digits) for c in columns) + " |")
    return "\n".join(lines) + "\n"


def csv_text(rows: Sequence[Mapping], columns: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: ("" if json_safe(row.get(c)) is None else row.get(c)) for c in columns})
    return buffer.getvalue()


def to_dataframe(rows: Sequence[Mapping], columns: Sequence[str]):
    import pandas as pd

    return pd.DataFrame([{c: row.get(c) for c in columns} for row in rows], columns=list(columns))
