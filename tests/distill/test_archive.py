"""The palace is an archive: a shorter, trimmed or changed copy of a session never deletes data."""

from __future__ import annotations

from conftest import write_jsonl
from palace_lab.distill import get_distiller
from palace_lab.distill.pipeline import distill_palace
from palace_lab.ingest import ingest_paths

SID = "7a1d0000-0000-4000-8000-0000000000cc"


def session(n: int, *, edit: int | None = None) -> list[dict]:
    records = []
    for i in range(n):
        text = f"request number {i} about src/mod{i}.py" + (" (edited)" if i == edit else "")
        records.append({"type": "user", "uuid": f"u{i}", "sessionId": SID,
                        "timestamp": f"2026-09-01T10:{i:02d}:00Z",
                        "message": {"role": "user", "content": text}})
        records.append({"type": "assistant", "uuid": f"a{i}", "sessionId": SID,
                        "timestamp": f"2026-09-01T10:{i:02d}:30Z",
                        "message": {"role": "assistant", "id": f"m{i}",
                                    "content": [{"type": "text", "text": f"done {i}"}]}})
    return records


def counts(palace) -> tuple[int, int, int]:
    return palace.count("messages"), palace.count("exchanges"), palace.count("cards")


def test_a_shorter_copy_keeps_the_longer_history(tmp_path, palace):
    full = write_jsonl(tmp_path / "full" / f"{SID}.jsonl", session(10))
    ingest_paths(palace, [full])
    distill_palace(palace, get_distiller("rules"))
    before = counts(palace)
    cut = write_jsonl(tmp_path / "cut" / f"{SID}.jsonl", session(6))
    report = ingest_paths(palace, [cut])
    assert counts(palace) == before == (20, 10, 10)
    assert report.totals()["archive_events"] == {"kept_stored": 1}
    [event] = palace.archive_events()
    assert (event["event"], event["stored_messages"], event["offered_messages"]) == (
        "kept_stored", 20, 12)
    assert palace.verify().ok


def test_a_grown_copy_replaces_itself(tmp_path, palace):
    ingest_paths(palace, [write_jsonl(tmp_path / "a" / f"{SID}.jsonl", session(4))])
    report = ingest_paths(palace, [write_jsonl(tmp_path / "b" / f"{SID}.jsonl", session(6))])
    assert counts(palace)[:2] == (12, 6)
    assert report.totals()["archive_events"] == {"grown": 1}
    assert report.totals()["new_exchanges"] == 2


def test_a_changed_copy_is_kept_beside_the_stored_one(tmp_path, palace):
    ingest_paths(palace, [write_jsonl(tmp_path / "a" / f"{SID}.jsonl", session(4))])
    report = ingest_paths(palace, [write_jsonl(tmp_path / "b" / f"{SID}.jsonl",
                                               session(5, edit=1))])
    ids = sorted(c["conversation_id"] for c in palace.conversations())
    assert ids[0] == SID and ids[1].startswith(SID + "~")
    assert counts(palace)[:2] == (8 + 10, 4 + 5)
    assert report.totals()["archive_events"] == {"diverged": 1}
    again = ingest_paths(palace, [write_jsonl(tmp_path / "c" / f"{SID}.jsonl",
                                              session(5, edit=1))])
    assert again.totals()["new_messages"] == 0 and counts(palace)[:2] == (18, 9)


def test_verify_finds_a_card_without_its_exchange(tmp_path, palace):
    ingest_paths(palace, [write_jsonl(tmp_path / f"{SID}.jsonl", session(2))])
    distill_palace(palace, get_distiller("rules"))
    gone = palace.exchanges()[0].exchange_id
    palace.conn.execute("DELETE FROM exchanges WHERE exchange_id=?", (gone,))
    report = palace.verify()
    assert not report.ok
    assert any(m.startswith(f"card {gone}@") and m.endswith("has no exchange")
               for m in report.mismatches)


def test_a_subagent_merged_into_the_middle_is_growth_not_a_new_copy(tmp_path, palace):
    folder = tmp_path / "project"
    main_file = folder / f"{SID}.jsonl"
    write_jsonl(main_file, session(3))
    ingest_paths(palace, [folder])
    distill_palace(palace, get_distiller("rules"))
    cards_before = palace.count("cards")
    write_jsonl(folder / SID / "subagents" / "agent-1.jsonl", [
        {"type": "user", "uuid": "s1", "sessionId": SID, "isSidechain": True,
         "timestamp": "2026-09-01T10:00:40Z", "message": {"role": "user", "content": "explore"}},
        {"type": "assistant", "uuid": "s2", "sessionId": SID, "isSidechain": True,
         "timestamp": "2026-09-01T10:00:50Z",
         "message": {"role": "assistant", "id": "sm", "content": [
             {"type": "text", "text": "found src/shop/core.py"}]}}])
    write_jsonl(main_file, session(4))
    report = ingest_paths(palace, [folder])
    assert report.totals()["archive_events"] == {"grown": 1}
    assert [c["conversation_id"] for c in palace.conversations()] == [SID]
    assert palace.count("messages") == 8 + 2 and palace.count("exchanges") == 4
    assert palace.count("cards") == cards_before and palace.verify().ok


def test_a_queued_prompt_that_arrives_later_is_growth(tmp_path, palace):
    queued = {"type": "queue-operation", "operation": "enqueue", "sessionId": SID,
              "timestamp": "2026-09-01T10:00:10Z", "content": "request number 1 about src/mod1.py"}
    records = session(1) + [queued]
    path = tmp_path / f"{SID}.jsonl"
    write_jsonl(path, records)
    ingest_paths(palace, [path])
    write_jsonl(path, records + session(2)[2:])  # the queued text now arrives as a request
    report = ingest_paths(palace, [path])
    assert report.totals()["archive_events"] == {"grown": 1}
    assert len(palace.conversations()) == 1 and palace.count("exchanges") == 2
