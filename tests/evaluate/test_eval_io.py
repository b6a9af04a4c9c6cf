"""Queries, qrels and runs as TREC and JSON files: round trips and errors that name the line."""

import json

import pytest
from hypothesis import given, strategies as st

from palace_lab.evaluate.io import (
    format_qrels, format_run, parse_qrels, parse_queries, parse_run, read_qrels, read_queries,
    read_run, write_qrels, write_queries, write_run,
)

QRELS = {"q1": {"xa": 3, "xb": 0}, "q2": {"xc": 2}}
RUN = {"q1": {"xa": 2.5, "xb": 0.125, "xd": 1.0}, "q2": {"xc": 0.5}}


def test_qrels_trec_round_trip(tmp_path):
    path = tmp_path / "qrels.txt"
    write_qrels(path, QRELS)
    assert path.read_text() == "q1 0 xa 3\nq1 0 xb 0\nq2 0 xc 2\n"
    assert read_qrels(path) == QRELS


def test_qrels_json_round_trip_and_auto_detection(tmp_path):
    path = tmp_path / "qrels.json"
    write_qrels(path, QRELS)
    assert json.loads(path.read_text()) == QRELS
    assert read_qrels(path) == QRELS
    assert parse_qrels('{"q": {"x": "2"}}') == {"q": {"x": 2}}


@pytest.mark.parametrize("text, message", [
    ("q1 0 xa 3\n\nq1 0 xb\n", "line 3: expected 4 fields"),
    ("q1 0 xa 3\nq1 0 xb 4\n", "line 2: grade '4' is not one of 0, 1, 2, 3"),
    ("q1 0 xa high\n", "line 1: grade 'high' is not a number"),
    ("q1 0 xa 2.5\n", "line 1: grade '2.5'"),
    ("q1 0 xa 3\nq1 0 xa 1\n", "line 2: q1/xa was already graded 3, now 1"),
    ('{"q1": {"xa": 3,\n  "xb": 7}}', r"line 2 \(q1/xb\): grade 7"),
    ('{"q1": [1, 2]}', "must map to an object"),
    ('{"q1": {"xa": 3}', "line 1: not valid JSON"),
])
def test_qrels_errors_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse_qrels(text, "qrels.txt")


def test_identical_duplicate_qrels_lines_are_accepted():
    assert parse_qrels("q 0 x 2\nq 0 x 2\n") == {"q": {"x": 2}}


def test_run_trec_round_trip_in_rank_order(tmp_path):
    path = tmp_path / "run.trec"
    write_run(path, RUN, tag="bm25")
    assert path.read_text().splitlines() == [
        "q1 Q0 xa 1 2.5 bm25", "q1 Q0 xd 2 1.0 bm25", "q1 Q0 xb 3 0.125 bm25", "q2 Q0 xc 1 0.5 bm25",
    ]
    assert read_run(path) == RUN


def test_run_json_round_trip(tmp_path):
    path = tmp_path / "run.json"
    write_run(path, RUN)
    assert list(json.loads(path.read_text())["q1"]) == ["xa", "xd", "xb"]
    assert read_run(path) == RUN


def test_run_ranks_in_the_file_are_not_trusted():
    assert parse_run("q Q0 a 1 0.1 t\nq Q0 b 2 0.9 t\n") == {"q": {"a": 0.1, "b": 0.9}}


@pytest.mark.parametrize("text, message", [
    ("q Q0 a 1 0.5\n", "line 1: expected 6 fields"),
    ("q Q0 a 1 0.5 t\nq Q0 b 2 high t\n", "line 2: score 'high' is not a number"),
    ("q Q0 a 1 0.5 t\nq Q0 a 2 0.4 t\n", "line 2: exchange a appears twice"),
])
def test_run_errors_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse_run(text, "run.trec")


def test_ids_with_whitespace_cannot_go_into_trec_files():
    with pytest.raises(ValueError, match="contains whitespace"):
        format_run({"q 1": {"a": 1.0}})
    with pytest.raises(ValueError, match="run tag"):
        format_run(RUN, tag="my tag")
    with pytest.raises(ValueError, match="unknown format"):
        parse_run("x", fmt="csv")


def test_queries_round_trip(tmp_path):
    queries = [{"query_id": "q1", "query": "pool timeout", "type": "conceptual"},
               {"query_id": "q2", "query": "config/db.yaml"}]
    path = tmp_path / "queries.jsonl"
    write_queries(path, queries)
    assert read_queries(path) == queries


@pytest.mark.parametrize("text, message", [
    ('{"query_id": "q1", "query": "a"}\n{"query": "b"}\n', "line 2: missing or empty 'query_id'"),
    ('{"query_id": "q1", "query": "a"}\n\n{"query_id": "q1", "query": "b"}\n', "line 3: query_id 'q1' repeats line 1"),
    ('{"query_id": "q1", "query": ""}\n', "line 1: missing or empty 'query'"),
    ('not json\n', "line 1: not valid JSON"),
    ('{"query_id": "q1", "query": "a", "type": 3}\n', "'type' must be a string"),
])
def test_query_errors_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse_queries(text, "queries.jsonl")


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        read_qrels(tmp_path / "nope.txt")


ids = st.text(alphabet="abcxyz0129_-", min_size=1, max_size=6)


@given(st.dictionaries(ids, st.dictionaries(ids, st.integers(0, 3), min_size=1), min_size=1),
       st.sampled_from(["trec", "json"]))
def test_qrels_parse_serialise_parse_is_stable(qrels, fmt):
    assert parse_qrels(format_qrels(qrels, fmt=fmt)) == qrels


@given(st.dictionaries(ids, st.dictionaries(ids, st.floats(-1e6, 1e6, allow_nan=False), min_size=1), min_size=1),
       st.sampled_from(["trec", "json"]))
def test_run_parse_serialise_parse_is_stable(run, fmt):
    assert parse_run(format_run(run, fmt=fmt)) == run
