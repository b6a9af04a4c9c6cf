"""``palace-lab mcp``: the SDK's own stdio client against a real server on a temporary palace.

List tools, search (ranking equal to ``palace-lab search``, with and without a mode, with
filters), drill-down with paging, a pack within its budget, rooms, stats, and bad arguments
that come back as tool errors while the server keeps serving.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from agent_helpers import PYTHON, cli_env, sample_palace

from palace_lab.cli import main
from palace_lab.redact import redact_text
from palace_lab.tokens import count_tokens

TOOLS = {"search", "get_exchange", "pack", "rooms", "stats"}


@pytest.fixture
def db(tmp_path_factory):
    return sample_palace(tmp_path_factory)


def session_run(db, steps, *extra):
    """Start ``palace-lab mcp`` over stdio, run ``await steps(session)``, return its value."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=PYTHON, args=["-m", "palace_lab.cli", "mcp", "--db", str(db),
                              "--embedder", "fake", *extra], env=cli_env())

    async def go():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await steps(session)

    return asyncio.run(asyncio.wait_for(go(), timeout=120))


def cli_search(db, capsys, *args):
    assert main(["search", "--db", str(db), "--embedder", "fake", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def structured(result):
    assert not result.is_error, result.content
    return result.structured_content


def test_list_tools_schemas_and_descriptions(db):
    async def steps(session):
        return (await session.list_tools()).tools

    tools = {t.name: t for t in session_run(db, steps)}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.output_schema and tool.input_schema["type"] == "object"
        assert tool.annotations.read_only_hint is True
    for name in TOOLS - {"stats"}:
        assert "not instructions" in tools[name].description
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert set(search["properties"]) == {"query", "mode", "k", "project", "since", "until", "room"}
    assert search["properties"]["k"]["maximum"] == 100


def test_search_ranking_equals_the_cli(db, capsys):
    queries = [("database is locked", {}), ("migration", {"mode": "bm25:verbatim", "k": 5}),
               ("search prefix", {"mode": "hnsw:core", "k": 7}),
               ("tests fail", {"project": "ledgerline", "k": 4}),
               ("sync", {"since": "2026-09-01", "until": "2026-10-31"})]

    async def steps(session):
        return [structured(await session.call_tool("search", {"query": q, **a}))
                for q, a in queries]

    answers = session_run(db, steps)
    for (query, arguments), answer in zip(queries, answers):
        flags = []
        for key, value in arguments.items():
            flags += [f"--{key}", str(value)]
        expected = cli_search(db, capsys, query, *flags)
        got = answer["hits"]
        assert [h["exchange_id"] for h in got] == [h["exchange_id"] for h in expected], query
        assert [h["score"] for h in got] == pytest.approx([h["score"] for h in expected])
        assert [h["rank"] for h in got] == list(range(1, len(got) + 1))
        assert all(h["card"]["core"] for h in got)
        if "project" in arguments:
            assert {h["project"] for h in got} == {arguments["project"]}
    assert answers[0]["mode"] == __import__("palace_lab.search").search.DEFAULT_MODE
    assert "not instructions" in answers[0]["notice"]


def test_drill_down_pages_the_verbatim_exchange(db):
    from palace_lab.store import Palace

    with Palace.open(db, create=False) as palace:
        longest = max(palace.exchanges(), key=lambda e: len(e.verbatim))

    async def steps(session):
        pages, offset = [], 0
        while offset is not None:
            page = structured(await session.call_tool(
                "get_exchange", {"exchange_id": longest.exchange_id, "offset": offset,
                                 "limit": 500}))
            pages.append(page)
            offset = page["next_offset"]
        return pages

    pages = session_run(db, steps)
    assert len(pages) == -(-len(redact_text(longest.verbatim)) // 500) > 1
    assert all(len(p["text"]) <= 500 for p in pages)
    assert "".join(p["text"] for p in pages) == redact_text(longest.verbatim)
    assert pages[0]["total_chars"] == len(redact_text(longest.verbatim))
    assert pages[0]["conversation_id"] == longest.conversation_id
    assert pages[-1]["next_offset"] is None


def test_pack_rooms_and_stats(db):
    async def steps(session):
        return [structured(await session.call_tool("pack", {"budget": 400})),
                structured(await session.call_tool("pack", {"budget": 600, "query": "sync",
                                                            "project": "tidewatch"})),
                structured(await session.call_tool("rooms", {"project": "fieldnotes"})),
                structured(await session.call_tool("stats", {}))]

    plain, focused, rooms, stats = session_run(db, steps)
    for pack in (plain, focused):
        assert pack["tokens"] <= pack["budget"]
        assert count_tokens([pack["text"]])[0] == pack["tokens"]
        assert pack["exchange_ids"] and all(e in pack["text"] for e in pack["exchange_ids"])
    assert focused["focus"] == {"query": "sync", "project": "tidewatch"}
    assert rooms["project"] == "fieldnotes" and rooms["rooms"]
    assert rooms["rooms"][0]["exchanges"] >= rooms["rooms"][-1]["exchanges"]
    assert stats["exchanges"] == 166
    assert stats["projects"] == {"ledgerline": 68, "tidewatch": 55, "fieldnotes": 43}
    assert stats["budget"]["exchanges"] == 166


def test_bad_arguments_are_tool_errors_and_the_server_lives(db):
    bad = [("search", {}), ("search", {"query": "x", "k": 0}), ("search", {"query": "x", "k": "ten"}),
           ("search", {"query": "x", "mode": "nonsense:layer"}),
           ("search", {"query": "x", "since": "last tuesday"}),
           ("get_exchange", {"exchange_id": "x-not-there"}),
           ("get_exchange", {"exchange_id": "x", "limit": 10**9}),
           ("pack", {"budget": 3}), ("pack", {"budget": -1}), ("no_such_tool", {})]

    async def steps(session):
        errors = [await session.call_tool(name, args) for name, args in bad]
        alive = await session.call_tool("search", {"query": "migration", "k": 2})
        return errors, alive

    errors, alive = session_run(db, steps)
    for i, ((name, args), result) in enumerate(zip(bad, errors)):
        assert result.is_error, (name, args)
        text = result.content[0].text
        assert text and "Traceback" not in text, text
        if i in (3, 4, 5, 7):  # refused by the library: one line (the SDK's schema errors are
            assert "\n" not in text.strip(), text  # pydantic's own multi-line report)
    assert "no exchange" in errors[5].content[0].text
    assert len(structured(alive)["hits"]) == 2


def test_missing_palace_is_one_line(tmp_path, capsys):
    assert main(["mcp", "--db", str(tmp_path / "none.db")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no palace" in err


def test_streamable_http_on_localhost(db):
    import socket
    import subprocess
    import time

    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([PYTHON, "-m", "palace_lab.cli", "mcp", "--db", str(db),
                             "--embedder", "fake", "--http", str(port)], env=cli_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def go():
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                return structured(await session.call_tool("search", {"query": "migration",
                                                                     "k": 3}))

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        answer = asyncio.run(asyncio.wait_for(go(), timeout=60))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert len(answer["hits"]) == 3


def test_secrets_in_a_verbatim_exchange_are_redacted(tmp_path):
    from conftest import write_jsonl

    from palace_lab.agent.recall import Recall
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    key = "sk-ant-api03-" + "Q7vZ2mN8xK4pL1sT9wR6yB3cF5hJ0dG" * 2
    with Palace.open(tmp_path / "p.db") as palace:
        ingest_paths(palace, [write_jsonl(tmp_path / "s.jsonl", [
            {"conversation_id": "c1", "role": "user", "content": f"why does {key} fail"},
            {"conversation_id": "c1", "role": "tool", "content": f"export ANTHROPIC_API_KEY={key}"}])])
    recall = Recall.open(tmp_path / "p.db", embedder="fake")
    try:
        eid = recall.palace.exchanges()[0].exchange_id
        page = recall.exchange(eid)
        hit = recall.search("why does fail", mode="bm25:verbatim")["hits"][0]
    finally:
        recall.close()
    assert key not in page["text"] and "[REDACTED:" in page["text"]
    assert key not in hit["preview"] and "[REDACTED:" in hit["preview"]


def test_search_hits_carry_the_persons_request_redacted(tmp_path):
    """Over stdio, as an agent sees it: each hit names what the person asked (no IDE block, its
    secret redacted), beside the card, which is redacted again on read (a stale card)."""
    from person_palace import ASKED, KIND, SECRET, STALE_SECRET, person_palace

    db = person_palace(tmp_path)

    async def steps(session):
        return structured(await session.call_tool("search", {"query": "nightly ledger sync",
                                                             "mode": "bm25:verbatim"}))

    hit = session_run(db, steps)["hits"][0]
    assert hit["request"] == f"{ASKED} gh token [REDACTED:{KIND}]"
    assert hit["preview"]  # every key of before is kept
    card = json.dumps(hit["card"])
    assert STALE_SECRET not in card and "[REDACTED:anthropic_api_key]" in card
    assert SECRET not in json.dumps(hit)


def test_a_query_with_a_broken_character_is_searched_like_the_cli(tmp_path, capsys):
    """The engine mends a lone surrogate (U+FFFD), so the MCP server's search tool answers with
    the real embedder what the CLI answers, instead of a tool error (the embedder's TypeError).
    The tools are called in-process: the SDK's client cannot send a lone surrogate."""
    from tiny_palace import fill

    from palace_lab.agent.mcp_server import Tools
    from palace_lab.agent.recall import Recall
    from palace_lab.settings import DEFAULT_EMBEDDER
    from palace_lab.store import Palace

    db = tmp_path / "tiny.db"
    with Palace.open(db) as palace:
        fill(palace, 4)
        tools = Tools(Recall(palace, embedder=DEFAULT_EMBEDDER, background=False))
        got = tools.search("request \ud83d 2", mode="hnsw:verbatim", k=3).model_dump()["hits"]
    assert main(["search", "--db", str(db), "--json", "--mode", "hnsw:verbatim", "--k", "3",
                 "request \ufffd 2"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert [h["exchange_id"] for h in got] == [h["exchange_id"] for h in expected]
