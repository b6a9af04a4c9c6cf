"""A bad-input corpus, generated here, run through the CLI contract into one palace.

Every case must end with exit 0 or 1 (1: exactly one line on stderr; 0: one JSON document on
stdout), ``verify`` must pass after it, and no count (conversations, messages, exchanges,
cards) may ever fall. Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import zipfile
from collections import Counter
from pathlib import Path

from palace_lab.cli import main
from palace_lab.store import Palace

SID = "7a1d0000-0000-4000-8000-00000000c0de"
ODD = [None, 0, -1, 2.5, True, [], {}, "", "\ud83d", [1, "x"], {"a": {"b": []}}, 1e300]


def cc_records(sid=SID, n=3):
    out = []
    for i in range(n):
        out.append({"type": "user", "uuid": f"{sid}-u{i}", "parentUuid": None, "sessionId": sid,
                    "timestamp": f"2026-09-01T10:0{i}:00Z", "cwd": "/home/me/repo",
                    "message": {"role": "user", "content": f"please fix bug {i} in src/m{i}.py"}})
        out.append({"type": "assistant", "uuid": f"{sid}-a{i}", "sessionId": sid,
                    "timestamp": f"2026-09-01T10:0{i}:30Z",
                    "message": {"role": "assistant", "id": f"msg{i}", "content": [
                        {"type": "text", "text": f"fixed bug {i}"},
                        {"type": "tool_use", "id": f"t{i}", "name": "Edit",
                         "input": {"file_path": f"src/m{i}.py"}}]}})
    return out


def codex_records(sid="0199c0de-0000-7000-8000-000000000001"):
    return [{"timestamp": "2026-09-01T10:00:00Z", "type": "session_meta",
             "payload": {"id": sid, "cwd": "/home/me/repo"}},
            {"timestamp": "2026-09-01T10:00:01Z", "type": "response_item",
             "payload": {"type": "message", "role": "user",
                         "content": [{"type": "input_text", "text": "rename the flag"}]}},
            {"timestamp": "2026-09-01T10:00:02Z", "type": "response_item",
             "payload": {"type": "function_call", "name": "shell", "call_id": "c1",
                         "arguments": "{\"cmd\": [\"rg\", \"flag\"]}"}},
            {"timestamp": "2026-09-01T10:00:03Z", "type": "response_item",
             "payload": {"type": "function_call_output", "call_id": "c1", "output": "a.py:1"}},
            {"timestamp": "2026-09-01T10:00:04Z", "type": "response_item",
             "payload": {"type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": "renamed"}]}}]


def palace_records(cid="pj-1"):
    return [{"conversation_id": cid, "role": "user", "content": "keep csv zeros",
             "timestamp": "2026-09-02T10:00:00Z", "project": "etl"},
            {"conversation_id": cid, "role": "assistant", "content": "dtype=str"}]


def chatgpt_export(cid="cg-1"):
    return [{"id": cid, "title": "t", "create_time": 1.7e9, "current_node": "n2", "mapping": {
        "root": {"id": "root", "message": None, "parent": None, "children": ["n1"]},
        "n1": {"id": "n1", "parent": "root", "children": ["n2"], "message": {
            "author": {"role": "user"}, "create_time": 1.7e9,
            "content": {"content_type": "text", "parts": ["why is the build slow"]}}},
        "n2": {"id": "n2", "parent": "n1", "children": [], "message": {
            "author": {"role": "assistant"}, "create_time": 1.7e9 + 5,
            "content": {"content_type": "text", "parts": ["the cache was off"]}}}}}]


def claude_ai_export(uuid="ca-1"):
    return [{"uuid": uuid, "name": "n", "created_at": "2026-09-03T10:00:00Z", "chat_messages": [
        {"uuid": "m1", "sender": "human", "text": "summarise the meeting",
         "created_at": "2026-09-03T10:00:00Z", "content": [{"type": "text", "text": "summarise"}],
         "attachments": [{"file_name": "notes.txt", "extracted_content": "agenda"}]},
        {"uuid": "m2", "sender": "assistant", "text": "three points",
         "created_at": "2026-09-03T10:00:05Z", "content": [{"type": "text", "text": "three"}]}]}]


def gemini_records(sid="9e3a0000-0000-4000-8000-00000000beef"):
    return [{"sessionId": sid, "projectHash": "ab" * 32, "startTime": "2026-09-05T10:00:00Z"},
            {"id": "g1", "timestamp": "2026-09-05T10:00:01Z", "type": "user",
             "content": [{"text": "why is the socket timeout ignored"}]},
            {"id": "g2", "timestamp": "2026-09-05T10:00:02Z", "type": "gemini",
             "content": "the timeout is set after connect", "thoughts": [{"subject": "s"}],
             "toolCalls": [{"id": "t1", "name": "read_file", "args": {"path": "net.py"},
                            "result": [{"functionResponse": {"id": "t1", "response": {
                                "output": "sock.connect(); sock.settimeout(5)"}}}],
                            "status": "success"}]},
            {"$set": {"summary": "socket timeout"}}]


def copilot_cli_events(sid="5c1e0000-0000-4000-8000-00000000c11e"):
    return [{"type": "session.start", "id": "e1", "timestamp": "2026-09-05T11:00:00Z",
             "data": {"sessionId": sid, "context": {"cwd": "/home/me/cli"}}},
            {"type": "user.message", "id": "e2", "timestamp": "2026-09-05T11:00:01Z",
             "data": {"content": "add a --verbose flag", "attachments": [{"path": "cli.py"}]}},
            {"type": "assistant.message", "id": "e3", "timestamp": "2026-09-05T11:00:02Z",
             "data": {"content": "adding it", "toolRequests": [
                 {"toolCallId": "c1", "name": "edit", "arguments": {"path": "cli.py"}}]}},
            {"type": "tool.execution_complete", "id": "e4", "timestamp": "2026-09-05T11:00:03Z",
             "data": {"toolCallId": "c1", "success": True, "result": {"content": "edited"}}}]


def copilot_log(sid="c0de0000-0000-4000-8000-00000000c0de"):
    request = {"requestId": "r1", "timestamp": 1788400000000,
               "message": {"text": "explain the retry backoff"},
               "response": [{"value": "it doubles each time"},
                            {"kind": "toolInvocationSerialized", "toolId": "read",
                             "toolCallId": "t1", "invocationMessage": {"value": "Reading"},
                             "resultDetails": {"input": "{}", "output": [{"value": "x"}]}}]}
    return [{"kind": 0, "v": {"version": 3, "sessionId": sid, "creationDate": 1788400000000,
                              "requests": []}},
            {"kind": 2, "k": ["requests"], "v": [request]},
            {"kind": 1, "k": ["customTitle"], "v": "backoff"}]


def opencode_session(sid="ses_corpus0000000000000001"):
    return {"id": sid, "projectID": "global", "directory": "/home/me/x", "title": "t",
            "time": {"created": 1788000000000, "updated": 1788000000000}}


def cursor_db(path: Path, bubble_value=None, composer_value=None) -> bytes:
    """A small Cursor global database (its bytes), with optional odd values."""
    import sqlite3

    composer = composer_value if composer_value is not None else json.dumps(
        {"composerId": "cc", "name": "n", "createdAt": 1788300000000,
         "fullConversationHeadersOnly": [{"bubbleId": "u", "type": 1}, {"bubbleId": "a", "type": 2}]})
    user = bubble_value if bubble_value is not None else json.dumps(
        {"type": 1, "text": "center the login form"})
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", [
        ("composerData:cc", composer), ("bubbleId:cc:u", user),
        ("bubbleId:cc:a", json.dumps({"type": 2, "text": "use flex and margin auto",
                                      "toolFormerData": {"name": "edit", "rawArgs": "{}",
                                                         "result": "ok"}}))])
    conn.commit()
    conn.close()
    data = path.read_bytes()
    path.unlink()
    return data


def jsonl(records) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def paths_of(record, prefix=()):
    """Every key path of a record (objects and lists), for mutation."""
    if isinstance(record, dict):
        for k, v in record.items():
            yield (*prefix, k)
            yield from paths_of(v, (*prefix, k))
    elif isinstance(record, list):
        for i, v in enumerate(record):
            yield (*prefix, i)
            yield from paths_of(v, (*prefix, i))


def mutated(record, path, value):
    out = copy.deepcopy(record)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def record_cases(name, records, pick: int) -> list[tuple[str, str, bytes]]:
    """Each field of one record set to odd values, a handful per field (deterministic)."""
    cases = []
    target = records[pick]
    for n, path in enumerate(paths_of(target)):
        for value in (ODD[n % len(ODD)], ODD[(n + 5) % len(ODD)]):
            changed = list(records)
            changed[pick] = mutated(target, path, value)
            label = f"{name}:{'.'.join(map(str, path))}={str(value)[:8]!r}"
            data = b"".join(json.dumps(r).encode("utf-8", "surrogatepass") + b"\n"
                            for r in changed)
            cases.append((label, f"{name}-{pick}-{len(cases)}.jsonl", data))
    return cases


def file_cases() -> list[tuple[str, str, bytes]]:
    good = jsonl(cc_records())
    return [
        ("empty", "empty.jsonl", b""),
        ("whitespace", "ws.jsonl", b"\n \n\t\n"),
        ("binary", "bin.jsonl", bytes(range(256)) * 8),
        ("bom", "bom.jsonl", b"\xef\xbb\xbf" + jsonl(palace_records("bom-1"))),
        ("crlf", "crlf.jsonl", jsonl(palace_records("crlf-1")).replace(b"\n", b"\r\n")),
        ("nul byte", "nul.jsonl", good.replace(b"please", b"ple\x00ase", 1)),
        ("truncated", "cut.jsonl", good[: len(good) // 2]),
        ("doubled lines", "dup.jsonl", b"".join(line + b"\n" + line + b"\n"
                                               for line in good.splitlines())),
        ("concatenated twice", "twice.jsonl", good + good),
        ("deep nesting", "deep.jsonl", b'{"a": ' * 100_000 + b"1" + b"}" * 100_000 + b"\n"),
        ("huge number", "num.jsonl", b'{"conversation_id": "n", "role": "user", "content": "x",'
                                     b' "timestamp": 1e400}\n'),
        ("NaN literal", "nan.jsonl", b'{"conversation_id": NaN, "role": "user", "content": "x"}\n'),
        ("invalid utf8", "utf8.jsonl", good.replace(b"fix", b"f\xffx")),
        ("lone surrogate", "sur.jsonl", jsonl(palace_records("sur-1")).replace(
            b"keep csv", b"keep \\udc80 csv")),
        ("array lines", "arr.jsonl", b"[1, 2]\n[3]\n"),
        ("scalar lines", "scal.jsonl", b"1\n\"x\"\nnull\n"),
        ("type list", "tl.jsonl", jsonl([{**cc_records()[0], "type": ["user"]}])),
        ("json not export", "obj.json", b'{"hello": "world"}'),
        ("json list of numbers", "nums.json", b"[1, 2, 3]"),
        ("json deep", "deep.json", b"[" * 100_000 + b"]" * 100_000),
        ("chatgpt mapping list", "cg1.json", json.dumps([{"id": "x", "mapping": []}]).encode()),
        ("chatgpt message string", "cg2.json", json.dumps(
            [mutated(chatgpt_export("cg-2")[0], ("mapping", "n1", "message"), "hi")]).encode()),
        ("chatgpt parts numbers", "cg3.json", json.dumps([mutated(
            chatgpt_export("cg-3")[0], ("mapping", "n1", "message", "content", "parts"),
            [1, 2.5, None])]).encode()),
        ("chatgpt parent loop", "cg4.json", json.dumps([mutated(
            chatgpt_export("cg-4")[0], ("mapping", "n1", "parent"), "n2")]).encode()),
        ("chatgpt bare object", "cg5.json", json.dumps(chatgpt_export("cg-5")[0]).encode()),
        ("claude-ai messages dict", "ca1.json", json.dumps(
            [mutated(claude_ai_export("ca-2")[0], ("chat_messages",), {"a": 1})]).encode()),
        ("claude-ai sender number", "ca2.json", json.dumps(
            [mutated(claude_ai_export("ca-3")[0], ("chat_messages", 0, "sender"), 7)]).encode()),
        ("claude-ai attachments string", "ca3.json", json.dumps([mutated(
            claude_ai_export("ca-4")[0], ("chat_messages", 0, "attachments"), "x")]).encode()),
        ("aider headers only", ".aider.chat.history.md",
         b"# aider chat started at 2026-09-01 10:00:00\n\n# aider chat started at x\n"),
        ("aider garbage", "x.aider.chat.history.md", b"#### \n> \n\xff\xfe\n"),
        ("markdown notes", "notes.md", b"# notes\n\njust text\n"),
        *new_format_file_cases(),
    ]


def new_format_file_cases() -> list[tuple[str, str, bytes]]:
    """Truncated, duplicated and wrongly typed files of the Gemini CLI, OpenCode, Copilot and
    Cursor formats (a locked Cursor database is a case of its own, in the test)."""
    legacy = json.dumps({**gemini_records()[0], "messages": gemini_records()[1:3]}, indent=2).encode()
    session = json.dumps(opencode_session()).encode()
    vscode = json.dumps(copilot_log()[0]["v"] | {"requests": copilot_log()[1]["v"]}).encode()
    return [
        ("gemini chat truncated", "session-g1.json", legacy[: len(legacy) // 2]),
        ("gemini chat messages dict", "session-g2.json", legacy.replace(b'"messages": [', b'"messages": {"a": [', 1)
         .replace(b"]\n}", b"]}\n}")),
        ("gemini jsonl doubled", "session-g3.jsonl", b"".join(
            line + b"\n" + line + b"\n" for line in jsonl(gemini_records("g3")).splitlines())),
        ("gemini jsonl truncated", "session-g4.jsonl", jsonl(gemini_records("g4"))[:-20]),
        ("gemini logs wrong types", "logs.json", json.dumps(
            [{"sessionId": 5, "messageId": "x", "message": ["a"]}, {"sessionId": "s", "message": "ok",
                                                                   "messageId": 0}]).encode()),
        ("gemini checkpoint parts string", "checkpoint-x.json", json.dumps(
            [{"role": "user", "parts": "hi"}, {"role": "model", "parts": [{"text": "yo"}]}]).encode()),
        ("opencode session truncated", "ses_cut.json", session[: len(session) // 2]),
        ("opencode session wrong types", "ses_types.json", json.dumps(
            {**opencode_session("ses_t"), "directory": 5, "title": ["x"], "parentID": 3}).encode()),
        ("copilot session truncated", "c1.json", vscode[: len(vscode) // 2]),
        ("copilot requests wrong types", "c2.json", vscode.replace(
            b'"explain the retry backoff"', b'[1, 2]')),
        ("copilot log doubled", "c3.jsonl", b"".join(
            line + b"\n" + line + b"\n" for line in jsonl(copilot_log("c3")).splitlines())),
        ("copilot cli doubled", "events-doubled.jsonl", b"".join(
            line + b"\n" + line + b"\n" for line in jsonl(copilot_cli_events("d")).splitlines())),
        ("cursor db truncated", "cut.vscdb", _cursor_bytes()[:3000]),
        ("cursor db garbage after header", "junk.vscdb", b"SQLite format 3\x00" + b"\xff" * 5000),
        ("cursor bubble not json", "b1.vscdb", _cursor_bytes(bubble_value="{cut")),
        ("cursor bubble wrong types", "b2.vscdb", _cursor_bytes(
            bubble_value=json.dumps({"type": [1], "text": 7}))),
        ("cursor composer a list", "b3.vscdb", _cursor_bytes(composer_value="[1, 2]")),
        ("cursor good", "good.vscdb", _cursor_bytes()),
        ("opencode db rows not json", "opencode.db", _opencode_db_bytes()),
    ]


def _opencode_db_bytes() -> bytes:
    """An OpenCode database whose rows are broken one way each, beside good ones."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "opencode.db"
        conn = sqlite3.connect(path)
        conn.executescript(
            "CREATE TABLE session (id TEXT, parent_id TEXT, directory TEXT, title TEXT,"
            " time_created INTEGER);"
            "CREATE TABLE message (id TEXT, session_id TEXT, time_created INTEGER, data TEXT);"
            "CREATE TABLE part (id TEXT, message_id TEXT, session_id TEXT, data TEXT);"
            "INSERT INTO session VALUES ('ses_1', NULL, 5, 'x', 'not a time');"
            "INSERT INTO message VALUES ('m1', 'ses_1', 1, '{\"role\": \"user\"}');"
            "INSERT INTO message VALUES ('m2', 'ses_1', 2, '{cut');"
            "INSERT INTO message VALUES ('m3', 'ses_1', 3, '{\"role\": 7}');"
            "INSERT INTO part VALUES ('p1', 'm1', 'ses_1', '{\"type\": \"text\", \"text\": \"hi there\"}');"
            "INSERT INTO part VALUES ('p2', 'm1', 'ses_1', '[1]');")
        conn.commit()
        conn.close()
        return path.read_bytes()


def _cursor_bytes(**odd) -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return cursor_db(Path(tmp) / "state.vscdb", **odd)


def zip_cases() -> list[tuple[str, str, dict | bytes]]:
    return [
        ("zip damaged", "bad.zip", b"PK\x03\x04" + b"\x00" * 100),
        ("zip without conversations", "nc.zip", {"user.json": "{}"}),
        ("zip conversations object", "co.zip", {"conversations.json": '{"a": 1}',
                                                "chat.html": "x"}),
        ("zip conversations number", "cn.zip", {"conversations.json": "42", "chat.html": "x"}),
        ("zip conversations empty list", "ce.zip", {"conversations.json": "[]",
                                                    "user.json": "{}"}),
        ("zip conversations broken", "cb.zip", {"conversations.json": '[{"id": "x", "mapping"',
                                                "chat.html": "x"}),
        ("zip good chatgpt", "good.zip", {"conversations.json": json.dumps(chatgpt_export("z-1")),
                                          "chat.html": "x"}),
    ]


def generated_cases() -> list[tuple[str, str, bytes]]:
    return (record_cases("claude-code", cc_records(), 0)
            + record_cases("claude-code", cc_records(), 1)
            + record_cases("codex", codex_records(), 0)
            + record_cases("codex", codex_records(), 1)
            + record_cases("codex", codex_records(), 2)
            + record_cases("palace-jsonl", palace_records(), 0)
            + record_cases("gemini-cli", gemini_records(), 1)
            + record_cases("gemini-cli", gemini_records(), 2)
            + record_cases("copilot-cli", copilot_cli_events(), 1)
            + record_cases("copilot-cli", copilot_cli_events(), 2)
            + record_cases("copilot", copilot_log(), 1)
            + file_cases())


class Corpus:
    def __init__(self, tmp_path: Path, capsys):
        self.tmp, self.capsys = tmp_path, capsys
        self.db = str(tmp_path / "corpus.db")
        self.exits: Counter = Counter()
        self.cases = 0
        self.last = (0, 0, 0, 0)

    def run(self, label: str, args: list[str]) -> int:
        self.capsys.readouterr()
        code = main(args)
        out, err = self.capsys.readouterr()
        assert code in (0, 1), f"{label}: exit {code}: {err}"
        assert "Traceback" not in err, label
        if code == 1:
            assert err.count("\n") == 1 and err.startswith("palace-lab: error:"), (label, err)
        elif "--json" in args:
            json.loads(out)
        return code

    def case(self, label: str, path: Path, *extra: str) -> None:
        self.cases += 1
        self.exits[self.run(label, ["ingest", str(path), "--db", self.db, "--json", *extra])] += 1
        self.check(label)

    def check(self, label: str) -> None:
        assert self.run(label, ["verify", "--db", self.db, "--json"]) == 0, label
        with Palace.open(self.db, create=False) as palace:
            now = tuple(palace.count(t) for t in ("conversations", "messages", "exchanges",
                                                  "cards"))
        assert all(a >= b for a, b in zip(now, self.last)), (label, self.last, now)
        self.last = now


def test_the_bad_input_corpus_through_the_cli(tmp_path, capsys):
    corpus = Corpus(tmp_path, capsys)
    inputs = tmp_path / "in"
    inputs.mkdir()
    known = inputs / f"{SID}.jsonl"
    known.write_bytes(jsonl(cc_records(n=6)))
    corpus.case("a good session", known)
    assert corpus.run("distill", ["distill", "--db", corpus.db, "--json"]) == 0
    corpus.check("distill")

    for label, name, data in generated_cases():
        path = inputs / name
        path.write_bytes(data)
        corpus.case(label, path)
    for label, name, members in zip_cases():
        path = inputs / name
        if isinstance(members, bytes):
            path.write_bytes(members)
        else:
            with zipfile.ZipFile(path, "w") as zf:
                for member, text in members.items():
                    zf.writestr(member, text)
        corpus.case(label, path)

    shorter = inputs / "copy" / f"{SID}.jsonl"
    shorter.parent.mkdir()
    shorter.write_bytes(jsonl(cc_records(n=2)))
    corpus.case("a shorter copy of a known session", shorter)
    edited = inputs / "edited" / f"{SID}.jsonl"
    edited.parent.mkdir()
    edited.write_bytes(jsonl(cc_records(n=6)).replace(b"bug 1", b"bug one"))
    corpus.case("an edited copy of a known session", edited)
    loop = inputs / "loop.jsonl"
    os.symlink(loop, loop)
    corpus.case("a symlink loop", loop)
    os.symlink(inputs / "nowhere", inputs / "dangling.jsonl")
    corpus.case("a broken link", inputs / "dangling.jsonl")
    (inputs / "folder.jsonl").mkdir()
    corpus.case("a folder named .jsonl", inputs / "folder.jsonl")
    undecodable = os.path.join(os.fsencode(inputs), b"name-\xff.jsonl")
    with open(undecodable, "wb") as fh:
        fh.write(jsonl(palace_records("undecodable-1")))
    corpus.case("an undecodable file name", Path(os.fsdecode(undecodable)))
    locked = inputs / "locked" / "state.vscdb"
    locked.parent.mkdir()
    locked.write_bytes(_cursor_bytes())
    owner = sqlite3.connect(locked, isolation_level=None)
    owner.execute("BEGIN EXCLUSIVE")  # Cursor writing: readers are locked out
    try:
        corpus.case("a locked Cursor database", locked)
    finally:
        owner.execute("ROLLBACK")
        owner.close()
    corpus.case("the whole folder at once", inputs)
    corpus.case("the whole folder again", inputs)

    assert corpus.run("distill", ["distill", "--db", corpus.db, "--json"]) == 0
    corpus.check("distill again")
    for mode in ("bm25:verbatim", "wsum(bm25:verbatim=nan,bm25:core=1)", "rrf(bm25:verbatim)",
                 "nonsense", "bm25:nolayer"):
        corpus.cases += 1
        corpus.exits[corpus.run(mode, ["search", "--db", corpus.db, "bug \udcff", "--mode",
                                       mode, "--embedder", "fake", "--json"])] += 1
    print(f"\ncorpus: {corpus.cases} cases, exits {dict(sorted(corpus.exits.items()))}, "
          f"verify ok after each, counts never fell; final (conversations, messages, "
          f"exchanges, cards) = {corpus.last}")
    assert corpus.cases >= 150


def test_detection_agrees_with_parsing_on_the_corpus(tmp_path):
    """Whatever an explicit --format reads, auto-detection picks a format that reads it."""
    from palace_lab.ingest import PARSER_MODULES, detect_format, get_parser

    disagreements = []
    for label, name, data in generated_cases():
        path = tmp_path / name
        path.write_bytes(data)
        readers = [f for f in PARSER_MODULES if _reads(get_parser(f), path)]
        try:
            auto = detect_format(path)
        except Exception as exc:  # noqa: BLE001 - the verdict is what is compared
            auto = type(exc).__name__
        if readers and auto not in readers:
            disagreements.append((label, readers, auto))
    assert disagreements == []


def _reads(parser, path) -> bool:
    try:
        return bool(parser.parse(path).conversations)
    except Exception:  # noqa: BLE001 - a parser that refuses the file does not read it
        return False
