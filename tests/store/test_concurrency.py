"""Several processes on one palace: parallel first ingests, ingest during ingest, search during
distill. Every process ends with exit 0, nothing is lost or counted twice, verify passes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from conftest import write_jsonl
from palace_lab.store import Palace

PARALLEL = 12  # the old migration race failed about 1 process in 5 at this width


def history(path, tag: str, conversations: int = 4, turns: int = 2):
    records = []
    for c in range(conversations):
        for t in range(turns):
            records += [
                {"conversation_id": f"{tag}-{c}", "role": "user",
                 "content": f"request {t} of {tag} {c}: tune the retry loop in src/{tag}.py"},
                {"conversation_id": f"{tag}-{c}", "role": "assistant",
                 "content": f"answer {t}: raised the timeout to {t + 5} s in src/{tag}.py"}]
    return write_jsonl(path, records)


def cli(*args) -> subprocess.Popen:
    env = dict(os.environ, PALACE_LAB_NO_PROGRESS="1")
    return subprocess.Popen([sys.executable, "-m", "palace_lab.cli", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def finish(procs) -> list[tuple[int, str]]:
    out = []
    for p in procs:
        _, err = p.communicate(timeout=300)
        out.append((p.returncode, err.decode("utf-8", "replace")))
    return out


@pytest.mark.parametrize("round_", [1, 2])
def test_parallel_first_ingests_into_a_new_palace(tmp_path, round_):
    db = tmp_path / "new" / "palace.db"
    files = [history(tmp_path / f"h{i}.jsonl", f"p{i}") for i in range(PARALLEL)]
    results = finish([cli("ingest", f, "--db", db, "--json") for f in files])
    assert [code for code, _ in results] == [0] * PARALLEL, [e for _, e in results]
    with Palace.open(db, create=False) as palace:
        assert palace.count("exchanges") == PARALLEL * 4 * 2
        assert palace.count("sources") == PARALLEL
        assert palace.verify().ok
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith(".")) == []


def test_the_same_file_ingested_by_several_processes_at_once(tmp_path):
    db = tmp_path / "palace.db"
    shared = history(tmp_path / "h.jsonl", "same")
    results = finish([cli("ingest", shared, "--db", db) for _ in range(4)])
    assert [code for code, _ in results] == [0] * 4, [e for _, e in results]
    with Palace.open(db, create=False) as palace:
        assert palace.count("exchanges") == 8 and palace.verify().ok


def test_ingest_during_ingest(tmp_path):
    db = tmp_path / "palace.db"
    big = tmp_path / "big"
    for i in range(40):
        history(big / f"b{i}.jsonl", f"b{i}", conversations=10, turns=3)
    small = history(tmp_path / "small.jsonl", "small")
    long_run = cli("ingest", big, "--db", db)
    deadline = time.monotonic() + 60
    while not db.exists() and long_run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the short runs start once the long one holds the palace
    short_runs = [cli("ingest", small, "--db", db) for _ in range(2)]
    results = finish([long_run, *short_runs])
    assert [code for code, _ in results] == [0, 0, 0], [e for _, e in results]
    with Palace.open(db, create=False) as palace:
        assert palace.count("exchanges") == 40 * 10 * 3 + 8
        assert palace.verify().ok


def test_search_during_distill(tmp_path):
    db = tmp_path / "palace.db"
    folder = tmp_path / "h"
    for i in range(20):
        history(folder / f"h{i}.jsonl", f"h{i}", conversations=10, turns=2)
    assert finish([cli("ingest", folder, "--db", db)])[0][0] == 0
    distill = cli("distill", "--db", db, "--json")
    searches = []
    while distill.poll() is None and len(searches) < 6:
        searches.append(finish([cli("search", "--db", db, "retry loop timeout", "--mode",
                                    "bm25:verbatim", "--embedder", "fake", "--json")])[0])
    code, err = finish([distill])[0]
    assert code == 0, err
    assert searches and all(c == 0 for c, _ in searches), searches
    with Palace.open(db, create=False) as palace:
        assert palace.count("cards") == palace.count("exchanges") == 400
        assert palace.verify().ok
    assert json.loads(subprocess.run(
        [sys.executable, "-m", "palace_lab.cli", "verify", "--db", str(db), "--json"],
        capture_output=True, text=True, check=True).stdout)["ok"]


def test_a_writer_waits_for_another_and_says_so(tmp_path):
    import threading

    first = Palace.open(tmp_path / "p.db")
    second = Palace.open(tmp_path / "p.db")
    second.conn.execute("PRAGMA busy_timeout=100")  # wait in short steps, to see each one
    told, waiting = [], threading.Event()
    second.on_wait = lambda path: (told.append(path), waiting.set())
    first.conn.execute("BEGIN IMMEDIATE")
    done = threading.Event()

    def write():
        second.kv_set("k", "v")
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    assert waiting.wait(10)
    assert not done.is_set() and told == [second.path]  # waiting, and told once
    first.conn.execute("COMMIT")
    writer.join(timeout=10)
    assert done.is_set() and second.kv_get("k") == "v" and len(told) == 1
    first.close()
    second.close()
