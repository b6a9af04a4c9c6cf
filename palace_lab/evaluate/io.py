"""Reading and writing queries, qrels and runs as files that ranx and trec_eval also read.

Formats (docs/architecture.md, "The JSON contracts"):

- **queries**: JSON Lines, one ``{"query_id", "query", "type"?}`` object per line.
- **qrels**: TREC qrels lines ``query_id 0 exchange_id grade`` (the second column is the
  unused "iteration" field, always written as ``0``) or one JSON object
  ``{"query_id": {"exchange_id": grade}}``; grades are integers 0-3.
- **runs**: TREC run lines ``query_id Q0 exchange_id rank score tag`` or one JSON object
  ``{"query_id": {"exchange_id": score}}``. On reading, the rank column is ignored, as
  trec_eval ignores it: the order comes from the scores (see :mod:`palace_lab.evaluate.base`).

Reading auto-detects the format (a JSON document starts with ``{``). Every error is a
``ValueError`` that names the file and the 1-based line, so a person can fix the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from palace_lab.errors import InputError
from palace_lab.evaluate.base import Qrels, Run, check_grade, check_qrels, check_run, ranked

FORMATS = ("auto", "trec", "json")


def _pick_format(text: str, fmt: str, name: str) -> str:
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} for {name}; valid formats: {', '.join(FORMATS)}")
    if fmt != "auto":
        return fmt
    return "json" if text.lstrip().startswith("{") else "trec"


def _load_json(text: str, name: str) -> dict:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise InputError(f"{name}: expected a JSON object {{query_id: {{exchange_id: value}}}}")
    for qid, docs in data.items():
        if not isinstance(docs, dict):
            raise InputError(f"{name}: query {qid!r} must map to an object {{exchange_id: value}}")
    return data


def _lines(text: str) -> Iterable[tuple[int, list[str]]]:
    """Non-blank lines as (1-based line number, whitespace-split fields)."""
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if fields:
            yield number, fields


def _read_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


# ---------------------------------------------------------------------------------- queries


def parse_queries(text: str, name: str = "queries") -> list[dict]:
    """Queries from JSON Lines text: ``[{"query_id", "query", "type"?}, ...]`` in file order."""
    out: list[dict] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}: line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
        query = _query_from(obj, where)
        qid = query["query_id"]
        if qid in seen:
            raise InputError(f"{where}: query_id {qid!r} repeats line {seen[qid]}")
        seen[qid] = number
        out.append(query)
    return out


def _query_from(obj: object, where: str) -> dict:
    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected an object with query_id and query")
    for key in ("query_id", "query"):
        if not isinstance(obj.get(key), (str, int)) or not str(obj[key]).strip():
            raise InputError(f"{where}: missing or empty {key!r}")
    qtype = obj.get("type")
    if qtype is not None and not isinstance(qtype, str):
        raise InputError(f"{where}: 'type' must be a string")
    query = {"query_id": str(obj["query_id"]), "query": str(obj["query"])}
    if qtype:
        query["type"] = qtype
    return query


def read_queries(path: str | Path) -> list[dict]:
    return parse_queries(_read_text(path), str(path))


def write_queries(path: str | Path, queries: Iterable[Mapping]) -> None:
    lines = []
    for q in queries:
        item = {"query_id": str(q["query_id"]), "query": q["query"]}
        if q.get("type"):
            item["type"] = q["type"]
        lines.append(json.dumps(item, ensure_ascii=False))
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


# ---------------------------------------------------------------------------------- qrels


def parse_qrels(text: str, name: str = "qrels", *, fmt: str = "auto") -> Qrels:
    """Qrels from TREC qrels lines or a JSON object; grades must be 0-3."""
    if _pick_format(text, fmt, name) == "json":
        return _json_qrels(text, name)
    qrels: Qrels = {}
    for number, fields in _lines(text):
        where = f"{name}: line {number}"
        if len(fields) != 4:
            raise InputError(
                f"{where}: expected 4 fields 'query_id 0 exchange_id grade', got {len(fields)}")
        qid, _iteration, doc, raw = fields
        grade = check_grade(raw, where)
        known = qrels.setdefault(qid, {})
        if doc in known and known[doc] != grade:
            raise InputError(f"{where}: {qid}/{doc} was already graded {known[doc]}, now {grade}")
        known[doc] = grade
    return qrels


def _json_qrels(text: str, name: str) -> Qrels:
    data = _load_json(text, name)
    return {
        str(qid): {str(d): check_grade(g, _json_where(text, name, qid, d)) for d, g in docs.items()}
        for qid, docs in data.items()
    }


def _json_where(text: str, name: str, qid: str, doc: str) -> str:
    """``name: line N (qid/doc)``: the line of ``"doc":`` after ``"qid":`` in the JSON text."""
    start = text.find(json.dumps(qid) + ":")
    at = text.find(json.dumps(doc) + ":", max(start, 0))
    line = text.count("\n", 0, at) + 1 if at >= 0 else "?"
    return f"{name}: line {line} ({qid}/{doc})"


def read_qrels(path: str | Path, *, fmt: str = "auto") -> Qrels:
    return parse_qrels(_read_text(path), str(path), fmt=fmt)


def _check_id(value: str, what: str) -> str:
    if not value or any(c.isspace() for c in value):
        raise InputError(f"{what} {value!r} is empty or contains whitespace; "
                         "TREC files cannot hold it")
    return value


def format_qrels(qrels: Mapping[str, Mapping[str, int]], *, fmt: str = "trec") -> str:
    """TREC qrels lines (queries and exchanges in sorted order) or a JSON document."""
    clean = check_qrels(qrels)
    if fmt == "json":
        return json.dumps(clean, indent=1, sort_keys=True) + "\n"
    if fmt != "trec":
        raise InputError(f"unknown qrels format {fmt!r}; valid formats: trec, json")
    return "".join(
        f"{_check_id(qid, 'query id')} 0 {_check_id(doc, 'exchange id')} {clean[qid][doc]}\n"
        for qid in sorted(clean) for doc in sorted(clean[qid])
    )


def write_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, int]], *, fmt: str | None = None) -> None:
    """Write ``qrels``; ``fmt`` defaults to json for a ``.json`` path, trec otherwise."""
    fmt = fmt or ("json" if str(path).endswith(".json") else "trec")
    Path(path).write_text(format_qrels(qrels, fmt=fmt), encoding="utf-8")


# ---------------------------------------------------------------------------------- runs


def parse_run(text: str, name: str = "run", *, fmt: str = "auto") -> Run:
    """A run from TREC run lines or a JSON object; the rank column is not trusted."""
    if _pick_format(text, fmt, name) == "json":
        return check_run(_load_json(text, name), name)
    run: Run = {}
    for number, fields in _lines(text):
        where = f"{name}: line {number}"
        if len(fields) != 6:
            raise InputError(
                f"{where}: expected 6 fields 'query_id Q0 exchange_id rank score tag', got {len(fields)}")
        qid, _q0, doc, _rank, raw, _tag = fields
        try:
            score = float(raw)
        except ValueError:
            raise InputError(f"{where}: score {raw!r} is not a number") from None
        results = run.setdefault(qid, {})
        if doc in results:
            raise InputError(f"{where}: exchange {doc} appears twice for query {qid}")
        results[doc] = score
    return run


def read_run(path: str | Path, *, fmt: str = "auto") -> Run:
    return parse_run(_read_text(path), str(path), fmt=fmt)


def format_run(run: Mapping[str, Mapping[str, float]], *, fmt: str = "trec", tag: str = "palace_lab") -> str:
    """TREC run lines (rank 1 = best, see :func:`ranked`) or a JSON document in rank order."""
    clean = check_run(run)
    if fmt == "json":
        ordered = {qid: {d: clean[qid][d] for d in ranked(clean[qid])} for qid in sorted(clean)}
        return json.dumps(ordered, indent=1) + "\n"
    if fmt != "trec":
        raise InputError(f"unknown run format {fmt!r}; valid formats: trec, json")
    _check_id(tag, "run tag")
    return "".join(
        f"{_check_id(qid, 'query id')} Q0 {_check_id(doc, 'exchange id')} {rank} {clean[qid][doc]!r} {tag}\n"
        for qid in sorted(clean) for rank, doc in enumerate(ranked(clean[qid]), start=1)
    )


def write_run(path: str | Path, run: Mapping[str, Mapping[str, float]], *,
              fmt: str | None = None, tag: str = "palace_lab") -> None:
    """Write ``run``; ``fmt`` defaults to json for a ``.json`` path, trec otherwise."""
    fmt = fmt or ("json" if str(path).endswith(".json") else "trec")
    Path(path).write_text(format_run(run, fmt=fmt, tag=tag), encoding="utf-8")
