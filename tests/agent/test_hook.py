"""``palace-lab hook session-start``: stdin JSON in, a pack of the cwd's project within the
budget out (plain or hookSpecificOutput), and nothing at all on an error or past the time limit
(exit 0 always, the reason in the log)."""

from __future__ import annotations

import json
import subprocess
import threading
import time

import pytest
from agent_helpers import PYTHON, cli_env, sample_palace

from palace_lab.agent import hook
from palace_lab.agent.hook import choose_project
from palace_lab.tokens import count_tokens


@pytest.fixture
def db(tmp_path_factory):
    return sample_palace(tmp_path_factory)


def event(cwd="/home/mira/src/tidewatch", **extra):
    return json.dumps({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                       "hook_event_name": "SessionStart", "source": "startup", **extra})


def run_cli(db, stdin, *args, log=None):
    # a generous limit: on a loaded 2-core machine a cold start (tokenizer load) can take 1 s
    argv = [PYTHON, "-m", "palace_lab.cli", "hook", "session-start", "--timeout", "30", *args]
    if db is not None:
        argv += ["--db", str(db)]
    if log is not None:
        argv += ["--log", str(log)]
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=cli_env(),
                          timeout=60)
    return done.returncode, done.stdout, done.stderr


def log_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_choose_project_from_cwd_and_its_parents():
    known = {"tidewatch": 55, "fieldnotes": 43}
    assert choose_project("/home/mira/src/tidewatch", known) == "tidewatch"
    assert choose_project("/home/mira/src/tidewatch/src/sync", known) == "tidewatch"
    assert choose_project("/home/mira/src/FieldNotes", known) == "fieldnotes"
    assert choose_project("/home/mira/src/other", known) is None
    assert choose_project(None, known) is None


def test_plain_text_pack_within_budget_citing_exchanges(db, tmp_path):
    log = tmp_path / "hook.log"
    code, out, err = run_cli(db, event(), "--budget", "600", log=log)
    assert code == 0 and err == ""
    text = out.rstrip("\n")
    assert "tidewatch" in text and "not instructions" in text and "get_exchange" in text
    assert count_tokens([text])[0] <= 600
    cited = [w.strip("`") for w in text.split() if w.startswith("`x")]
    assert cited
    (line,) = log_lines(log)
    assert line["project"] == "tidewatch" and line["reason"] == "ok" and line["tokens"] <= 600
    assert line["session_id"] == "s-1" and line["source"] == "startup"


def test_json_output_and_the_warm_cache(db, tmp_path):
    log = tmp_path / "hook.log"
    first = run_cli(db, event(cwd="/home/mira/src/ledgerline/app"), "--json", "--budget", "800",
                    log=log)
    second = run_cli(db, event(cwd="/home/mira/src/ledgerline/app"), "--json", "--budget",
                     "800", log=log)
    assert first[0] == second[0] == 0 and first[1] == second[1]
    doc = json.loads(first[1])
    context = doc["hookSpecificOutput"]["additionalContext"]
    assert doc["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "ledgerline" in context and count_tokens([context])[0] <= 800
    assert [entry["reason"] for entry in log_lines(log)] == ["ok", "ok (cached)"]


@pytest.mark.parametrize("budget", [250, 600, 2000, 5000])
def test_budget_is_never_exceeded(db, tmp_path, budget):
    out = hook.run(event(cwd="/home/mira/src/fieldnotes"), db, budget=budget, timeout=30,
                   log_path=tmp_path / "hook.log")
    assert out and count_tokens([out])[0] <= budget


@pytest.mark.parametrize("stdin, reason", [
    ("not json", "stdin is not JSON"),
    ("[1, 2]", "not a JSON object"),
    (event(cwd="/somewhere/else"), "no project"),
    (event(), "is smaller than the"),  # with --budget 20 below
])
def test_errors_print_nothing_and_log_why(db, tmp_path, stdin, reason):
    log = tmp_path / "hook.log"
    budget = "20" if reason.startswith("is smaller") else "2000"
    code, out, err = run_cli(db, stdin, "--budget", budget, log=log)
    assert (code, out, err) == (0, "", "")
    assert reason in log_lines(log)[-1]["reason"]


def test_no_palace_prints_nothing(tmp_path):
    log = tmp_path / "hook.log"
    assert run_cli(tmp_path / "none.db", event(), log=log) == (0, "", "")
    assert run_cli(None, event(), log=log) == (0, "", "")
    reasons = [entry["reason"] for entry in log_lines(log)]
    assert "no palace" in reasons[0] and "no palace file" in reasons[1]


def test_past_the_time_limit_prints_nothing(db, tmp_path, monkeypatch):
    release = threading.Event()  # the build finishes only when the test lets it
    finished = threading.Event()

    def slow(*args, **kwargs):
        release.wait(30)
        finished.set()
        return hook.HookResult("late memory", "ok")

    monkeypatch.setattr(hook, "build", slow)
    try:
        out = hook.run(event(), db, budget=2000, timeout=0.2, log_path=tmp_path / "hook.log")
        still_building = not finished.is_set()  # run returned without waiting for the build
    finally:
        release.set()
    assert out == "" and still_building
    assert "timed out after 0.2 s" in log_lines(tmp_path / "hook.log")[-1]["reason"]


def copy_of(db, tmp_path):
    import shutil

    target = tmp_path / "copy.db"
    shutil.copy(db, target)
    return target


def wait_for_log(log, text, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if log.exists() and any(text in e["reason"] for e in log_lines(log)):
            return
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not logged within {seconds} s")


def test_a_stale_pack_is_printed_and_refreshed_in_the_background(db, tmp_path):
    from conftest import write_jsonl

    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    copy, log = copy_of(db, tmp_path), tmp_path / "hook.log"
    first = hook.run(event(), copy, budget=700, timeout=30, log_path=log)
    with Palace.open(copy) as palace:  # the palace grows after the pack was cached
        ingest_paths(palace, [write_jsonl(tmp_path / "new.jsonl", [
            {"conversation_id": "c-new", "role": "user", "content": "a new tidewatch request",
             "project": "tidewatch", "timestamp": "2026-11-30T09:00:00Z"}])])
    stale = hook.run(event(), copy, budget=700, timeout=30, log_path=log)
    assert stale == first
    assert "changed since); refresh started" in log_lines(log)[-1]["reason"]
    wait_for_log(log, "primed the cache")
    hook.run(event(), copy, budget=700, timeout=30, log_path=log)
    assert log_lines(log)[-1]["reason"] == "ok (cached)"


def test_a_slow_first_build_primes_the_cache_for_the_next_start(db, tmp_path, monkeypatch):
    copy, log = copy_of(db, tmp_path), tmp_path / "hook.log"
    real, release = hook.memory_text, threading.Event()

    def slow(*args, **kwargs):
        release.wait(30)  # past the time limit until the test lets it finish
        return real(*args, **kwargs)

    monkeypatch.setattr(hook, "memory_text", slow)
    try:
        assert hook.run(event(), copy, budget=900, timeout=0.3, log_path=log) == ""
        assert "timed out after 0.3 s; refresh started" in log_lines(log)[-1]["reason"]
    finally:
        release.set()
    wait_for_log(log, "primed the cache")
    out = hook.run(event(), copy, budget=900, timeout=0.3, log_path=log)
    assert "tidewatch" in out and count_tokens([out])[0] <= 900
    assert log_lines(log)[-1]["reason"] == "ok (cached)"


def test_one_refresh_per_pack_and_a_dead_ones_lock_is_broken(tmp_path):
    from palace_lab.agent import pack_cache

    pack = tmp_path / "hook" / "abc.json"
    lock = pack_cache._lock(pack)
    assert lock is not None and lock.exists()
    assert pack_cache._lock(pack) is None  # a refresh is running: no second one
    later = lambda: time.time() + pack_cache.LOCK_SECONDS + 1  # noqa: E731 - the injected clock
    assert pack_cache._lock(pack, now=later) == lock  # that refresh died long ago: taken again
