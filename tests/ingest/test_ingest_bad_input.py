"""Bad input: good lines kept, bad ones counted by reason, nothing half-written, no traceback."""

from __future__ import annotations

import json

import pytest

from conftest import write_jsonl, write_zip
from palace_lab.cli import main
from palace_lab.errors import NothingToIngestError, UnknownFormatError
from palace_lab.ingest import ingest_paths

SID = "7a1d0000-0000-4000-8000-0000000000aa"


def good(uuid, text="Please rename the helper in src/app/util.py"):
    return {"type": "user", "uuid": uuid, "sessionId": SID, "timestamp": "2026-09-01T10:00:00Z",
            "message": {"role": "user", "content": text}}


def dump(palace) -> list[str]:
    return [line for line in palace.conn.iterdump() if not line.startswith("INSERT INTO \"kv\"")]


def run_cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    return code, out, err


def test_empty_file_is_refused_and_palace_unchanged(tmp_path, palace):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    before = dump(palace)
    with pytest.raises(UnknownFormatError, match="is empty"):
        ingest_paths(palace, [empty])
    assert dump(palace) == before


def test_invalid_lines_among_good_ones_are_counted(tmp_path, palace):
    path = tmp_path / f"{SID}.jsonl"
    lines = [json.dumps(good("g1")).encode(), b"{not json", b"\xff\xfe bad utf8 \xff",
             b"[1, 2, 3]", json.dumps(good("g2", "and add a test for it")).encode(),
             b'{"type": "user", "uuid": "cut']
    path.write_bytes(b"\n".join(lines))
    report = ingest_paths(palace, [path])
    assert report.totals()["skipped"] == {"invalid_json": 1, "invalid_utf8": 1,
                                          "not_an_object": 1, "truncated_last_line": 1}
    assert [e.request for e in palace.exchanges()] == [
        "Please rename the helper in src/app/util.py", "and add a test for it"]


def test_binary_file_names_the_formats_tried(tmp_path, palace, capsys):
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(bytes(range(256)) * 64)
    code, _, err = run_cli(["ingest", str(binary), "--db", str(palace.path)], capsys)
    assert code == 1
    assert ("formats tried: claude-code, codex, chatgpt, claude-ai, aider, gemini-cli, opencode, "
            "cursor, copilot, copilot-cli, palace-jsonl") in err
    assert err.count("\n") == 1


def test_fifty_megabyte_single_line(tmp_path, palace):
    path = tmp_path / f"{SID}.jsonl"
    write_jsonl(path, [good("g1")])
    with open(path, "ab") as fh:
        fh.write(b'{"type": "user", "uuid": "big", "sessionId": "' + SID.encode()
                 + b'", "message": {"role": "user", "content": "' + b"x" * (50 << 20) + b'"}}\n')
        fh.write(b"{broken\n")
    report = ingest_paths(palace, [path])
    assert report.totals()["skipped"] == {"invalid_json": 1, "exchange_truncated": 1}
    assert len(palace.exchanges()) == 2
    assert len(palace.messages(SID)[1].text) == 50 << 20  # the archive keeps every character
    from palace_lab.ingest.segment import CUT_NOTE, MAX_EXCHANGE_CHARS

    big = palace.exchanges()[1]  # what feeds cards and indexes is bounded, with a marker
    assert CUT_NOTE in big.verbatim and len(big.verbatim) < MAX_EXCHANGE_CHARS + 200


def test_unknown_format_error_lists_formats(tmp_path, palace):
    path = tmp_path / "notes.json"
    path.write_text(json.dumps({"hello": "world"}))
    with pytest.raises(UnknownFormatError, match="formats tried: claude-code, codex, chatgpt"):
        ingest_paths(palace, [path])


def test_zip_without_conversations_json(tmp_path, palace, capsys):
    path = tmp_path / "export.zip"
    write_zip(path, {"user.json": "{}"})
    before = dump(palace)
    code, _, err = run_cli(["ingest", str(path), "--db", str(palace.path)], capsys)
    assert code == 1 and err.startswith("palace-lab: error:") and err.count("\n") == 1
    assert dump(palace) == before


def test_folder_with_nothing_to_ingest(tmp_path, palace, capsys):
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "readme.md").write_text("# just notes\n")
    (folder / "data.json").write_text("[1, 2]")
    with pytest.raises(NothingToIngestError, match="nothing to ingest"):
        ingest_paths(palace, [folder])
    code, _, err = run_cli(["ingest", str(folder), "--db", str(palace.path)], capsys)
    assert code == 1 and "nothing to ingest" in err


def test_file_of_only_bad_lines_leaves_palace_unchanged(tmp_path, palace):
    write_jsonl(tmp_path / "ok.jsonl", [good("g1")])
    ingest_paths(palace, [tmp_path / "ok.jsonl"])
    before = dump(palace)
    bad = tmp_path / "bad" / f"{SID}.jsonl"
    bad.parent.mkdir()
    bad.write_bytes(json.dumps({"type": "progress", "sessionId": SID}).encode() + b"\n{oops\n")
    with pytest.raises(NothingToIngestError):
        ingest_paths(palace, [bad])
    assert dump(palace) == before


def test_failure_mid_write_rolls_back(tmp_path, palace, monkeypatch):
    write_jsonl(tmp_path / "a.jsonl", [good("g1")])
    before = dump(palace)

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(palace, "record_source", boom)
    with pytest.raises(RuntimeError):
        ingest_paths(palace, [tmp_path / "a.jsonl"])
    assert dump(palace) == before


def test_missing_path(tmp_path, palace):
    with pytest.raises(NothingToIngestError, match="does not exist"):
        ingest_paths(palace, [tmp_path / "nope"])
