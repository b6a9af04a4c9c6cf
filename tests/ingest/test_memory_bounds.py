"""Memory is bounded: over-limit documents and lines are refused unread, one exchange's share of
cards and indexes is capped with a marker, and a 50 MB line is ingested and distilled in a few
hundred MB."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import write_jsonl, write_zip
from palace_lab.errors import NothingToIngestError
from palace_lab.ingest import base, ingest_paths

SID = "7a1d0000-0000-4000-8000-0000000000ff"


def user(uuid, text):
    return {"type": "user", "uuid": uuid, "sessionId": SID, "timestamp": "2026-09-01T10:00:00Z",
            "message": {"role": "user", "content": text}}


def test_an_export_member_over_the_limit_is_refused_unread(tmp_path, palace, monkeypatch):
    monkeypatch.setattr(base, "MAX_JSON_BYTES", 1 << 20)
    folder = tmp_path / "in"
    folder.mkdir()
    big = json.dumps([{"id": "c", "mapping": {}, "title": "x" * (3 << 20)}])
    write_zip(folder / "export.zip", {"conversations.json": big,
                                      "chat.html": "<html></html>"})
    write_jsonl(folder / f"{SID}.jsonl", [user("u1", "the good session")])
    report = ingest_paths(palace, [folder])
    [refused] = [s for s in report.sources if s.error]
    assert refused.skipped == {"file:too_large": 1} and "1 MiB" in refused.error
    assert [e.request for e in palace.exchanges()] == ["the good session"]


def test_a_json_file_over_the_limit_is_refused(tmp_path, palace, monkeypatch):
    monkeypatch.setattr(base, "MAX_JSON_BYTES", 1 << 16)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{"id": "c", "mapping": {}, "title": "x" * (1 << 17)}]))
    with pytest.raises(NothingToIngestError, match="larger than"):
        ingest_paths(palace, [path])


def test_a_line_over_the_limit_is_skipped_and_the_next_kept(tmp_path, palace, monkeypatch):
    monkeypatch.setattr(base, "MAX_LINE_BYTES", 1 << 20)
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in (
        user("u1", "first question asked"), user("u2", "x" * (2 << 20)),
        user("u3", "third question asked"))))
    report = ingest_paths(palace, [path])
    assert report.totals()["skipped"] == {"line_too_long": 1}
    assert [e.request for e in palace.exchanges()] == ["first question asked",
                                                       "third question asked"]


def test_one_exchange_contributes_a_bounded_text_with_a_marker():
    from palace_lab.model import Conversation, Message
    from palace_lab.ingest.segment import CUT_NOTE, MAX_EXCHANGE_CHARS, MAX_MESSAGE_CHARS, segment

    huge = "start " + "y" * (3 * MAX_MESSAGE_CHARS) + " the end"
    messages = tuple(Message("c", i, "tool_result" if i else "user", huge if i else "go", f"k{i}",
                             is_request=i == 0) for i in range(8))
    [exchange] = segment(Conversation("c", "palace-jsonl", messages))
    assert len(exchange.verbatim) < MAX_EXCHANGE_CHARS + 200
    assert exchange.verbatim.count(CUT_NOTE) >= 1 and exchange.verbatim.endswith("the end")


def _peak_rss_mb(args: list[str]) -> tuple[int, int]:
    """(exit code, peak RSS in MB) of one CLI run, measured from a fresh parent process."""
    probe = ("import resource, subprocess, sys; "
             "code = subprocess.run(sys.argv[1:]).returncode; "
             "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)")
    env = dict(os.environ, PALACE_LAB_NO_PROGRESS="1")
    out = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "palace_lab.cli",
                          *args], capture_output=True, text=True, env=env, check=True).stdout
    code, mb = out.split()[-2:]
    return int(code), int(mb)


def test_a_fifty_megabyte_line_is_ingested_and_distilled_in_bounded_memory(tmp_path):
    path = tmp_path / f"{SID}.jsonl"
    with open(path, "wb") as fh:
        fh.write(json.dumps(user("u1", "fix the parser")).encode() + b"\n")
        fh.write(b'{"type": "user", "uuid": "big", "sessionId": "' + SID.encode()
                 + b'", "message": {"role": "user", "content": "'
                 + b"word error src/a.py 42 ms " * (2 << 20) + b'"}}\n')
    db = str(tmp_path / "p.db")
    code, ingest_mb = _peak_rss_mb(["ingest", str(path), "--db", db])
    assert code == 0 and ingest_mb < 450, ingest_mb  # was 821 MB
    code, distill_mb = _peak_rss_mb(["distill", "--db", db])
    assert code == 0 and distill_mb < 400, distill_mb  # was 3 GB


def test_a_zip_holding_a_gigabyte_is_refused_in_little_memory(tmp_path):
    import zipfile

    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("conversations.json", "w", force_zip64=True) as member:
            member.write(b'[{"id": "c1", "mapping": {"n": {"id": "n", "message": null}}, "title": "')
            chunk = b"x" * (1 << 20)
            for _ in range(base.MAX_JSON_BYTES // len(chunk) + 8):
                member.write(chunk)
            member.write(b'"}]')
        zf.writestr("chat.html", "<html></html>")
    assert path.stat().st_size < 4 << 20
    from palace_lab.ingest import detect_format

    assert detect_format(path) == "chatgpt"
    code, mb = _peak_rss_mb(["ingest", str(path), "--db", str(tmp_path / "p.db")])
    assert code == 1 and mb < 150, mb  # was 2.1 GB
