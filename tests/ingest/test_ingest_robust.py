"""One bad record or file never ends an ingest: it is skipped, counted by reason, the rest goes on.

Each case below ended ``ingest`` with "unexpected error" (exit 2) before; the file that carries
the defect sits in a folder between two good sessions, and both good sessions must be read.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import write_jsonl
from palace_lab.ingest import ingest_paths

SID = "7a1d0000-0000-4000-8000-0000000000bb"


def cc(uuid, text="Please rename the helper in src/app/util.py", sid=SID, **extra):
    rec = {"type": "user", "uuid": uuid, "sessionId": sid, "timestamp": "2026-09-01T10:00:00Z",
           "cwd": "/home/me/repo", "message": {"role": "user", "content": text}}
    rec.update(extra)
    return rec


def codex(kind, payload):
    return {"timestamp": "2026-09-01T10:00:00Z", "type": kind, "payload": payload}


def good_folder(tmp_path):
    folder = tmp_path / "history"
    write_jsonl(folder / "a-first.jsonl", [cc("a1", "first good request", sid="s-first")])
    write_jsonl(folder / "z-last.jsonl", [cc("z1", "last good request", sid="s-last")])
    return folder


def lines(*records) -> bytes:
    return b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n"
                    for r in records)


GOOD = cc("g1", "the good line in the bad file")
RECORD_CASES = {
    "session id a number": (lines(GOOD, cc("b1", sessionId=12345)), "invalid_field:sessionId"),
    "uuid a list": (lines(GOOD, cc(["x"])), "invalid_field:uuid"),
    "message a string": (lines(GOOD, {**cc("b1"), "message": "hello"}), "invalid_field:message"),
    "cwd a number": (lines(GOOD, cc("b1", cwd=7)), "invalid_field:cwd"),
    "type a list": (lines(GOOD, {**cc("b1"), "type": ["user"]}), "invalid_field:type"),
    "text block a number": (lines(GOOD, {**cc("b1"), "message": {
        "role": "user", "content": [{"type": "text", "text": 5}]}}), "malformed_record"),
    "lines all duplicated": (lines(GOOD, GOOD, cc("g2", "second"), cc("g2", "second")),
                             "duplicate_record"),
    "deep nesting": (lines(GOOD) + b'{"a": ' * 100_000 + b"1" + b"}" * 100_000 + b"\n",
                     "too_deeply_nested"),
}


@pytest.mark.parametrize("name", list(RECORD_CASES))
def test_a_bad_claude_code_record_is_skipped_and_the_folder_goes_on(tmp_path, palace, name):
    data, reason = RECORD_CASES[name]
    folder = good_folder(tmp_path)
    (folder / f"m-{SID}.jsonl").write_bytes(data)
    report = ingest_paths(palace, [folder])
    requests = {e.request for e in palace.exchanges()}
    assert {"first good request", "last good request", "the good line in the bad file"} <= requests
    assert report.totals()["skipped"].get(reason, 0) >= 1
    assert palace.verify().ok


def test_a_file_concatenated_twice_is_read_once(tmp_path, palace):
    path = tmp_path / f"{SID}.jsonl"
    data = lines(GOOD, {"type": "assistant", "uuid": "g1a", "sessionId": SID,
                        "message": {"role": "assistant", "id": "m1",
                                    "content": [{"type": "text", "text": "done"}]}})
    path.write_bytes(data + data)
    report = ingest_paths(palace, [path])
    assert report.totals()["skipped"] == {"duplicate_record": 2}
    assert len(palace.exchanges()) == 1 and palace.count("messages") == 2


def test_lone_surrogate_is_replaced_and_counted(tmp_path, palace):
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(lines(GOOD) + b'{"type": "user", "uuid": "s1", "sessionId": "' + SID.encode()
                     + b'", "message": {"role": "user", "content": "half an emoji \\ud83d here"}}\n')
    report = ingest_paths(palace, [path])
    assert report.totals()["skipped"] == {"lone_surrogate_replaced": 1}
    assert "half an emoji \ufffd here" in {e.request for e in palace.exchanges()}
    assert palace.verify().ok


@pytest.mark.parametrize("payload, reason", [
    ([1, 2], "record:no_payload"),
    ({"type": "message", "role": "user", "content": [{"type": "input_text", "text": 42}]},
     "malformed_record"),
    ({"type": "message", "role": ["user"], "content": "x"}, None),  # kept as system text
])
def test_a_bad_codex_record_is_skipped(tmp_path, palace, payload, reason):
    path = tmp_path / "rollout-2026-09-01T10-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl"
    write_jsonl(path, [
        codex("session_meta", {"id": "0199aaaa-0000-7000-8000-000000000001", "cwd": "/r"}),
        codex("response_item", {"type": "message", "role": "user",
                                "content": [{"type": "input_text", "text": "good request"}]}),
        codex("response_item", payload),
    ])
    report = ingest_paths(palace, [path])
    assert report.totals()["skipped"] == ({reason: 1} if reason else {})
    assert [e.request for e in palace.exchanges()] == ["good request"]


def test_bom_does_not_lose_the_first_record(tmp_path, palace):
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + lines(
        {"conversation_id": "c", "role": "user", "content": "first line"},
        {"conversation_id": "c", "role": "assistant", "content": "answer"}))
    report = ingest_paths(palace, [path])
    assert report.totals()["skipped"] == {}
    assert palace.count("messages") == 2


def test_an_unreadable_file_is_reported_and_the_folder_goes_on(tmp_path):
    """Run as an unprivileged user (root reads every file), through the CLI."""
    import shutil
    import subprocess
    import tempfile

    from unprivileged import as_nobody

    prefix = as_nobody()
    root = tempfile.mkdtemp(prefix="palace-unreadable-")  # outside pytest's private folder
    try:
        folder = good_folder(Path(root))
        write_jsonl(folder / "m-locked.jsonl", [GOOD]).chmod(0)
        os.chmod(root, 0o777)
        for path in (folder, *folder.iterdir()):
            if path.name != "m-locked.jsonl":
                path.chmod(0o755 if path.is_dir() else 0o644)
        run = subprocess.run([*prefix, sys.executable, "-m", "palace_lab.cli", "ingest",
                              str(folder), "--db", os.path.join(root, "p.db"), "--json"],
                             capture_output=True, text=True,
                             env=dict(os.environ, PALACE_LAB_NO_PROGRESS="1"))
        assert run.returncode == 0, run.stderr
        totals = json.loads(run.stdout)["totals"]
        assert totals["skipped"] == {"file:unreadable_file": 1} and totals["exchanges"] == 2
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_file_with_an_undecodable_name_is_read(tmp_path, palace):
    folder = good_folder(tmp_path)
    try:
        bad = os.path.join(os.fsencode(folder), b"m-\xff\xfe.jsonl")
        with open(bad, "wb") as fh:
            fh.write(lines(GOOD))
    except OSError:
        pytest.skip("this file system refuses undecodable names")
    report = ingest_paths(palace, [folder])
    assert report.totals()["skipped"] == {"lone_surrogate_replaced": 2}  # its source paths
    assert len(palace.exchanges()) == 3 and palace.verify().ok
    json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")  # printable as it is
    assert any(s.path.endswith("m-\ufffd\ufffd.jsonl") for s in report.sources)
    assert ingest_paths(palace, [folder]).totals()["unchanged_files"] == 3


def test_a_file_that_breaks_a_parser_is_reported_and_the_folder_goes_on(tmp_path, palace,
                                                                       monkeypatch):
    from palace_lab.ingest import palace_jsonl

    folder = good_folder(tmp_path)
    write_jsonl(folder / "m.jsonl", [{"conversation_id": "c", "role": "user", "content": "x"}])

    def broken(path):
        raise ZeroDivisionError("a parser bug")

    monkeypatch.setattr(palace_jsonl, "PARSER",
                        palace_jsonl.Parser("palace-jsonl", palace_jsonl.sniff, broken))
    report = ingest_paths(palace, [folder])
    [bad] = [s for s in report.sources if s.error]
    assert bad.skipped == {"file:unreadable_content": 1} and "ZeroDivisionError" in bad.error
    assert len(palace.exchanges()) == 2


def test_a_symlink_loop_is_named_as_such(tmp_path, palace):
    loop = tmp_path / "loop.jsonl"
    os.symlink(loop, loop)
    from palace_lab.errors import NothingToIngestError

    with pytest.raises(NothingToIngestError, match="symbolic link loop"):
        ingest_paths(palace, [loop])


def test_detection_agrees_with_parsing(tmp_path, palace):
    """What the explicit --format reads, auto-detection picks too."""
    no_session = tmp_path / "cc.jsonl"
    write_jsonl(no_session, [{k: v for k, v in GOOD.items() if k != "sessionId"}])
    early_unknown_role = tmp_path / "pj.jsonl"
    write_jsonl(early_unknown_role, [
        {"conversation_id": "c", "role": "narrator", "content": "once"},
        {"conversation_id": "c", "role": "user", "content": "the request"}])
    from palace_lab.ingest import detect_format

    assert detect_format(no_session) == "claude-code"
    assert detect_format(early_unknown_role) == "palace-jsonl"


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip("POSIX file names and permissions")
