"""What the person gets wrong is one line on stderr and exit 1, never "unexpected error"."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import write_jsonl
from unprivileged import as_nobody

from palace_lab.cli import main


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "p.db"
    history = write_jsonl(tmp_path / "h.jsonl", [
        {"conversation_id": "c1", "role": "user", "content": "fix the pool timeout in db.py"},
        {"conversation_id": "c1", "role": "assistant", "content": "raised it to 30 s"},
        {"conversation_id": "c2", "role": "user", "content": "keep csv zeros"},
        {"conversation_id": "c2", "role": "assistant", "content": "dtype=str"}])
    assert main(["ingest", str(history), "--db", str(path)]) == 0
    assert main(["distill", "--db", str(path)]) == 0
    return path


def one_line_error(capsys, args) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 1, err
    assert err.startswith("palace-lab: error:") and err.count("\n") == 1, err
    assert "unexpected" not in err and "Traceback" not in err
    return err


QUERIES = {
    "broken line": '{"query_id": "q1", "query": "pool"}\n{not json\n',
    "empty text": '{"query_id": "q1", "query": ""}\n',
    "duplicate ids": '{"query_id": "q1", "query": "a"}\n{"query_id": "q1", "query": "b"}\n',
}


@pytest.mark.parametrize("name", [*QUERIES, "missing"])
def test_a_bad_queries_file(tmp_path, db, capsys, name):
    path = tmp_path / "q.jsonl"
    if name != "missing":
        path.write_text(QUERIES[name])
    capsys.readouterr()
    one_line_error(capsys, ["search", "--db", str(db), "--queries", str(path), "--mode",
                            "bm25:verbatim", "--json"])


QRELS = {"grade 5": "q1 0 x1 5\n", "grade -1": "q1 0 x1 -1\n", "grade 2.5": "q1 0 x1 2.5\n",
         "grade high": "q1 0 x1 high\n", "grade 1e400": "q1 0 x1 1e400\n",
         "three fields": "q1 x1 2\n", "bad json": '{"q1": {"x1": }', "empty": ""}


@pytest.mark.parametrize("name", list(QRELS))
def test_a_bad_qrels_file(tmp_path, db, capsys, name):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query_id": "q1", "query": "pool"}\n')
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS[name])
    capsys.readouterr()
    one_line_error(capsys, ["eval", "--db", str(db), "--queries", str(queries), "--qrels",
                            str(qrels), "--modes", "bm25:verbatim", "--json"])
    if name != "empty":  # an empty qrels file is a valid (empty) set of judgments to store
        one_line_error(capsys, ["import-queries", str(queries), "--qrels", str(qrels),
                                "--db", str(db)])


@pytest.mark.parametrize("where", ["a folder", "a missing folder"])
def test_pack_out_that_cannot_be_written(tmp_path, db, capsys, where):
    out = tmp_path if where == "a folder" else tmp_path / "nope" / "pack.md"
    capsys.readouterr()
    one_line_error(capsys, ["pack", "--db", str(db), "--budget", "2000", "--out", str(out)])


@pytest.mark.parametrize("weights", ["nan,hnsw:core=0.5", "inf,hnsw:core=0.5",
                                     "0,hnsw:core=0", "-inf,hnsw:core=1"])
def test_weights_that_are_not_finite_or_all_zero_are_refused(db, capsys, weights):
    capsys.readouterr()
    one_line_error(capsys, ["search", "--db", str(db), "pool", "--json", "--embedder", "fake",
                            "--mode", f"wsum(bm25:verbatim={weights})"])


def test_rrf_k_must_be_finite(db, capsys):
    capsys.readouterr()
    one_line_error(capsys, ["search", "--db", str(db), "pool", "--embedder", "fake",
                            "--mode", "rrf(bm25:verbatim,hnsw:core;k=nan)"])


def test_a_query_with_invalid_utf8_bytes_is_searched(db, capsys):
    query = os.fsdecode(b"pool \xff\xfe timeout")
    capsys.readouterr()
    assert main(["search", "--db", str(db), query, "--json", "--embedder", "fake"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits and hits[0]["conversation_id"] == "c1"


def test_another_applications_sqlite_file_is_refused_and_left_unchanged(tmp_path, capsys):
    other = tmp_path / "app.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    con.commit()
    con.close()
    before = other.read_bytes()
    history = write_jsonl(tmp_path / "h.jsonl", [{"conversation_id": "c", "role": "user",
                                                   "content": "x"}])
    err = one_line_error(capsys, ["ingest", str(history), "--db", str(other)])
    assert "another application" in err
    assert other.read_bytes() == before


def test_an_empty_file_is_a_palace_only_when_asked(tmp_path, capsys):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    history = write_jsonl(tmp_path / "h.jsonl", [{"conversation_id": "c", "role": "user",
                                                   "content": "x"}])
    assert "empty" in one_line_error(capsys, ["ingest", str(history), "--db", str(empty)])
    assert empty.read_bytes() == b""
    assert main(["ingest", str(history), "--db", str(empty), "--new-palace"]) == 0
    assert main(["verify", "--db", str(empty)]) == 0


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_palace_is_one_line(what):
    prefix = as_nobody()
    root = Path(tempfile.mkdtemp(prefix="palace-ro-"))  # outside pytest's private folder
    try:
        history = write_jsonl(root / "h.jsonl", [{"conversation_id": "c", "role": "user",
                                                  "content": "x"}])
        assert main(["ingest", str(history), "--db", str(root / "d" / "p.db")]) == 0
        more = write_jsonl(root / "h2.jsonl", [{"conversation_id": "c2", "role": "user",
                                                "content": "y"}])
        for path in (root, root / "d", root / "d" / "p.db", history, more):
            path.chmod(0o755 if path.is_dir() else 0o644)
        (root / "d" / "p.db").chmod(0o444)
        if what == "folder":
            (root / "d").chmod(0o555)
        else:
            (root / "d").chmod(0o777)
        run = subprocess.run([*prefix, sys.executable, "-m", "palace_lab.cli", "ingest",
                              str(more), "--db", str(root / "d" / "p.db")],
                             capture_output=True, text=True)
        assert run.returncode == 1, run.stderr
        assert run.stderr.count("\n") == 1 and "read-only" in run.stderr, run.stderr
    finally:
        (root / "d").chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)


def test_a_symlink_loop_as_db_is_one_line(tmp_path, capsys):
    loop = tmp_path / "loop.db"
    os.symlink(loop, loop)
    one_line_error(capsys, ["verify", "--db", str(loop)])


def test_a_queries_file_with_a_lone_surrogate_is_searched(tmp_path, db, capsys):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query_id": "q1", "query": "pool \\ud83d timeout"}\n')
    capsys.readouterr()
    assert main(["search", "--db", str(db), "--queries", str(queries), "--modes",
                 "bm25:verbatim,hybrid-rrf", "--embedder", "fake", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["bm25:verbatim"]["q1"][0]["conversation_id"] == "c1"


def test_a_bad_concurrency_is_one_line_not_an_unexpected_error(db, capsys):
    """A value the person typed that the LLM client refuses is the project's InputError: a
    plain ``error:`` line, exit 1 (it was "unexpected error: ValueError", exit 2)."""
    capsys.readouterr()
    err = one_line_error(capsys, ["distill", "--db", str(db), "--distiller",
                                  "openai-compat", "--base-url", "http://127.0.0.1:9",
                                  "--model", "m", "--concurrency", "0"])
    assert "max_concurrency >= 1" in err
