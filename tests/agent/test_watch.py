"""``palace-lab watch`` on a temporary Claude Code tree: append → searchable; a half-written
line; truncate; delete; a file that vanishes; SIGTERM and SIGINT stop it cleanly."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from agent_helpers import PYTHON, cli_env

from palace_lab.agent.watch import STATUS_KEY, Watcher, last_status
from palace_lab.search import SearchEngine
from palace_lab.store import Palace

SESSION = "5a1e0c6e-0000-4000-8000-00000000a001"


def line(n: int, role: str, text: str) -> str:
    """One Claude Code transcript record (user or assistant text), chained by uuid."""
    record = {"parentUuid": f"u-{n - 1}" if n else None, "isSidechain": False,
              "cwd": "/home/mira/src/orbit", "sessionId": SESSION, "type": role,
              "message": {"role": role, "content": text if role == "user"
                          else [{"type": "text", "text": text}]},
              "uuid": f"u-{n}", "timestamp": f"2026-11-02T10:{n:02d}:00.000Z"}
    return json.dumps(record) + "\n"


def exchange(n: int, request: str, answer: str) -> str:
    return line(n, "user", request) + line(n + 1, "assistant", answer)


@pytest.fixture
def tree(tmp_path):
    folder = tmp_path / "projects" / "-home-mira-src-orbit"
    folder.mkdir(parents=True)
    (folder / f"{SESSION}.jsonl").write_text(
        exchange(0, "why does the orbit planner drift after midnight", "The epoch was local "
                 "time; I switched it to UTC in planner.py and the drift is gone."), "utf-8")
    return tmp_path / "projects"


def found(db: Path, query: str) -> list[str]:
    """Previews of the hits that contain the query's first word (BM25 on the verbatim layer)."""
    with Palace.open(db, create=False) as palace:
        hits = SearchEngine(palace, embedder="fake").search(query, "bm25:verbatim", k=3)
        word = query.split()[0]
        return [h.preview for h in hits if h.score > 0
                and word in palace.exchange(h.exchange_id).verbatim]


def wait_for(check, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"not within {seconds} s")


def test_once_ingests_distills_and_indexes(tree, tmp_path, capsys):
    from palace_lab.cli import main

    db = tmp_path / "palace.db"
    assert main(["watch", str(tree), str(tmp_path / "missing"), "--db", str(db), "--once",
                 "--embedder", "fake", "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["passes"] == 1 and doc["totals"]["new_exchanges"] == 1
    assert doc["totals"]["distilled"] == 1 and doc["last"]["errors"] == []
    assert "missing does not exist" in err
    assert "orbit planner" in found(db, "midnight drift")[0]
    with Palace.open(db, create=False) as palace:
        assert palace.latest_distiller().startswith("rules")
        assert last_status(palace)["new_exchanges"] == 1


def test_follow_append_half_line_truncate_delete_and_stop(tree, tmp_path):
    db = tmp_path / "palace.db"
    session = next(tree.rglob("*.jsonl"))
    palace = Palace.open(db)
    watcher = Watcher(palace, [tree], embedder="fake", log=lambda _line: None)
    runner = threading.Thread(target=watcher.run, kwargs={"debounce_ms": 200}, daemon=True)
    runner.start()
    try:
        wait_for(lambda: found(db, "midnight drift"))

        # an appended exchange becomes searchable; its card is made
        with open(session, "a", encoding="utf-8") as fh:
            fh.write(exchange(2, "the quasar7 import fails on python 3.12",
                              "quasar7 needs the distutils shim; pinned setuptools<70."))
        wait_for(lambda: found(db, "quasar7"))
        assert watcher.passes[-1].distilled >= 1

        # a half-written last line is skipped, then read whole when the writer finishes it
        half = exchange(4, "the zeppelin9 cache never expires", "Set ttl=600 in cache.py.")
        before = len(watcher.passes)
        with open(session, "a", encoding="utf-8") as fh:
            fh.write(half[:60])
        wait_for(lambda: len(watcher.passes) > before)
        assert watcher.passes[-1].errors == [] and not found(db, "zeppelin9")
        with open(session, "a", encoding="utf-8") as fh:
            fh.write(half[60:])
        wait_for(lambda: found(db, "zeppelin9"))

        # a truncated file leaves the archive alone; a deleted one too
        before = len(watcher.passes)
        session.write_text(exchange(0, "short", "rewritten"), "utf-8")
        wait_for(lambda: len(watcher.passes) > before and watcher.passes[-1].shrunk == 1)
        before = len(watcher.passes)
        session.unlink()
        wait_for(lambda: len(watcher.passes) > before)
        assert found(db, "quasar7") and found(db, "zeppelin9")
        assert not any(p.errors for p in watcher.passes), [p.errors for p in watcher.passes]
    finally:
        watcher.stop.set()
        runner.join(timeout=15)
        palace.close()
    assert not runner.is_alive()


def test_a_vanished_file_is_counted_not_fatal(tree, tmp_path):
    with Palace.open(tmp_path / "palace.db") as palace:
        watcher = Watcher(palace, [tree], embedder="fake", warm=False, log=lambda _line: None)
        report = watcher.apply([tree / "gone" / "never.jsonl"])
        assert (report.vanished, report.errors) == (1, [])
        assert json.loads(palace.kv_get(STATUS_KEY))["vanished"] == 1


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_cleanly(tree, tmp_path, sig):
    db = tmp_path / "palace.db"
    proc = subprocess.Popen([PYTHON, "-m", "palace_lab.cli", "watch", str(tree), "--db", str(db),
                             "--embedder", "fake", "--debounce", "200", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cli_env())
    try:
        wait_for(lambda: db.exists() and found(db, "midnight drift"), 60)
        time.sleep(0.5)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    doc = json.loads(out)
    assert doc["stopped"] is True and doc["totals"]["new_exchanges"] == 1


def test_load_page_shows_the_last_watch_pass(tree, tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    db = tmp_path / "palace.db"
    with Palace.open(db) as palace:
        Watcher(palace, [tree], embedder="fake", warm=False, log=lambda _line: None).run(once=True)
    monkeypatch.setenv("PALACE_LAB_DB", str(db))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"),
                           default_timeout=120)
    at.run()
    at.switch_page("pages/load.py")
    at.run()
    assert not at.exception and not at.error
    status = [c.value for c in at.caption if "Last watch pass" in c.value]
    assert status and "1 new exchanges" in status[0] and "**0 pending**" in status[0]


def test_mcp_search_finds_what_the_watcher_just_ingested(tree, tmp_path):
    """The whole loop: a session grows, the watcher ingests it, a running MCP server (same
    palace, another process) returns the new exchange; neither blocks the other."""
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    db = tmp_path / "palace.db"
    session_file = next(tree.rglob("*.jsonl"))
    palace = Palace.open(db)
    watcher = Watcher(palace, [tree], embedder="fake", log=lambda _line: None)
    runner = threading.Thread(target=watcher.run, kwargs={"debounce_ms": 200}, daemon=True)
    runner.start()
    params = StdioServerParameters(command=PYTHON, args=[
        "-m", "palace_lab.cli", "mcp", "--db", str(db), "--embedder", "fake"], env=cli_env())

    async def go():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                with open(session_file, "a", encoding="utf-8") as fh:
                    fh.write(exchange(2, "the pulsar3 export times out", "Raised timeout=90."))
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    result = await session.call_tool("search", {"query": "pulsar3 export"})
                    assert not result.is_error, result.content
                    hits = result.structured_content["hits"]
                    if hits and "pulsar3" in hits[0]["preview"]:
                        return hits[0]
                    await asyncio.sleep(0.3)
        raise AssertionError("not found within 30 s")

    try:
        wait_for(lambda: found(db, "midnight drift"))
        hit = asyncio.run(asyncio.wait_for(go(), timeout=90))
    finally:
        watcher.stop.set()
        runner.join(timeout=15)
        palace.close()
    assert hit["project"] == "orbit" and hit["rank"] == 1


def test_a_failed_ingest_is_tried_again_without_a_new_event(tree, tmp_path, monkeypatch):
    import sqlite3

    import palace_lab.ingest as ingest
    from palace_lab.agent import watch

    real, calls = ingest.ingest_file, []

    def locked_once(palace, path, *args, **kwargs):
        calls.append(path)
        if len(calls) == 2:  # the append's pass finds the palace locked
            raise sqlite3.OperationalError("database is locked")
        return real(palace, path, *args, **kwargs)

    monkeypatch.setattr(ingest, "ingest_file", locked_once)
    clock = [1000.0]  # the watcher's clock: the retry waits for it, not for real seconds
    db = tmp_path / "palace.db"
    palace = Palace.open(db)
    watcher = Watcher(palace, [tree], embedder="fake", log=lambda _line: None,
                      clock=lambda: clock[0])
    runner = threading.Thread(target=watcher.run, kwargs={"debounce_ms": 200}, daemon=True)
    runner.start()
    try:
        wait_for(lambda: watcher.passes)
        with open(next(tree.rglob("*.jsonl")), "a", encoding="utf-8") as fh:
            fh.write(exchange(2, "the nebula5 build is red", "Pinned node 20."))
        wait_for(lambda: any("database is locked" in e for p in watcher.passes for e in p.errors))
        clock[0] += watch.RETRY_SECONDS + 1
        wait_for(lambda: found(db, "nebula5"))
    finally:
        watcher.stop.set()
        runner.join(timeout=15)
        palace.close()
