"""A bad-input corpus, generated here, run through the CLI contract into one palace.

Every case must end with exit 0 or 1 (1: exactly one line on stderr; 0: one JSON document on
stdout), ``verify`` must pass after it, and no count (conversations, messages, exchanges,
cards) may ever fall. Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import copy
import json
import os
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
    ]


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
