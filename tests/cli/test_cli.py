"""The command-line contract: JSON on stdout only, one-line errors, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from palace_lab.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_ingest_json_summary(real_exports, real_facts, tmp_path, capsys):
    db = tmp_path / "x.db"
    code, out, _ = run(["ingest", str(real_exports), "--db", str(db), "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["totals"]["exchanges"] == real_facts["exchanges"]
    assert doc["formats"]["codex"]["exchanges"] == real_facts["codex_exchanges"]
    code, out, _ = run(["ingest", str(real_exports), "--db", str(db), "--json"], capsys)
    assert json.loads(out)["totals"]["new_exchanges"] == 0


def test_exchanges_cards_budget_verify(real_exports, real_facts, tmp_path, capsys):
    db = str(tmp_path / "x.db")
    run(["ingest", str(real_exports / "codex"), "--db", db], capsys)
    code, out, _ = run(["exchanges", "--db", db, "--json"], capsys)
    rows = json.loads(out)
    assert [sorted(r) for r in rows][0] == sorted(
        ["exchange_id", "conversation_id", "ply_start", "ply_end", "preview", "files_touched",
         "project", "timestamp"])
    assert rows[0]["preview"] == real_facts["codex_first_request"]
    code, out, _ = run(["distill", "--db", db, "--json"], capsys)
    assert json.loads(out)["made"] == real_facts["codex_exchanges"]
    code, out, _ = run(["cards", "--db", db, "--json"], capsys)
    card = json.loads(out)[0]
    assert set(card) >= {"exchange_id", "distiller", "exchange_core", "specific_context",
                         "room_assignments", "files_touched"}
    code, out, _ = run(["budget", "--db", db, "--json"], capsys)
    budget = json.loads(out)
    assert budget["exchanges"] == real_facts["codex_exchanges"] and budget["tokenizer"] == "cl100k_base"
    assert "ratio_of_totals" in budget["compression"]["definitions"]
    code, out, _ = run(["verify", "--db", db, "--json"], capsys)
    assert json.loads(out)["ok"] is True


def test_errors_are_one_line(tmp_path, capsys):
    code, out, err = run(["exchanges", "--db", str(tmp_path / "none.db")], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1
    code, out, err = run(["distill", "--db", str(tmp_path / "none.db"), "--distiller", "nope"], capsys)
    assert code == 1 and "valid distillers:" in err


def test_bad_option_is_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ingest", "--format", "bogus", "x"])
    assert exc.value.code == 1
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "invalid choice" in err


def test_every_command_is_documented_in_readme():
    readme = (ROOT / "README.md").read_text()
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # noqa: SLF001 - argparse has no API
    for name in commands:
        assert f"palace-lab {name}" in readme, f"README does not document `palace-lab {name}`"


def test_modes_json_contract(capsys):
    code, out, _ = run(["modes", "--json"], capsys)
    modes = json.loads(out)
    assert {"name", "kind", "layers", "mechanisms"} <= set(modes[0])
    names = {m["name"] for m in modes}
    assert {"bm25:verbatim", "hnsw:core", "exact:core+rooms", "hybrid-rrf"} <= names
    assert sum(m["kind"] == "cross" for m in modes) >= 5


def _sample_palace(real_exports, tmp_path, capsys) -> str:
    db = str(tmp_path / "s.db")
    run(["ingest", str(real_exports), "--db", db], capsys)
    run(["distill", "--db", db], capsys)
    return db


def test_search_one_query_and_batch(real_exports, real_facts, tmp_path, capsys):
    db = _sample_palace(real_exports, tmp_path, capsys)
    query, conversation, opening = real_facts["search"]
    code, out, _ = run(["search", "--db", db, query, "--mode",
                        "bm25:verbatim", "--k", "3", "--json", "--embedder", "fake"], capsys)
    hits = json.loads(out)
    assert code == 0 and len(hits) == 3
    assert set(hits[0]) == {"exchange_id", "conversation_id", "ply_start", "ply_end", "rank",
                            "score", "preview"}
    assert hits[0]["conversation_id"] == conversation
    assert hits[0]["preview"].startswith(opening)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query_id": "q1", "query": "sidechain CSS class"}\n'
                       '{"query_id": "q2", "query": "show tools"}\n')
    code, out, _ = run(["search", "--db", db, "--queries", str(queries), "--modes",
                        "bm25:verbatim,rrf(bm25:verbatim,hnsw:core;k=60)", "--json",
                        "--embedder", "fake"], capsys)
    batch = json.loads(out)
    assert set(batch) == {"bm25:verbatim", "rrf(bm25:verbatim,hnsw:core;k=60)"}
    assert set(batch["bm25:verbatim"]) == {"q1", "q2"}
    assert batch["bm25:verbatim"]["q1"][0]["rank"] == 1


def test_search_bad_mode_is_one_line(real_exports, tmp_path, capsys):
    db = _sample_palace(real_exports, tmp_path, capsys)
    code, out, err = run(["search", "--db", db, "x", "--mode", "bm26:verbatim"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1


def test_eval_prints_the_paper_table(real_exports, real_facts, tmp_path, capsys):
    db = _sample_palace(real_exports, tmp_path, capsys)
    code, out, _ = run(["exchanges", "--db", db, "--json"], capsys)
    opening = real_facts["search"][2]
    target = next(r for r in json.loads(out) if r["preview"].startswith(opening))
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"query_id": "q1", "query": real_facts["eval_query"], "type": "mixed"}) + "\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"q1 0 {target['exchange_id']} 3\n")
    code, out, _ = run(["eval", "--db", db, "--queries", str(queries), "--qrels", str(qrels),
                        "--modes", "bm25:verbatim,bm25:core,hybrid-rrf", "--json",
                        "--embedder", "fake"], capsys)
    report = json.loads(out)
    assert code == 0
    rows = {r["mode"]: r for r in report["modes"]}
    assert set(rows) == {"bm25:verbatim", "bm25:core", "hybrid-rrf"}
    assert rows["bm25:verbatim"]["mrr"] == 1.0
    assert report["summary"]["best_verbatim"] == "bm25:verbatim"


def test_import_queries_stores_the_set(real_exports, tmp_path, capsys):
    db = _sample_palace(real_exports, tmp_path, capsys)
    code, out, _ = run(["exchanges", "--db", db, "--json"], capsys)
    eid = json.loads(out)[0]["exchange_id"]
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query_id": "q1", "query": "refactoring browser tests", "type": "conceptual"}\n')
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"q1 0 {eid} 3\nq1 0 xmissing 1\n")
    code, out, _ = run(["import-queries", str(queries), "--qrels", str(qrels), "--db", db,
                        "--set", "mine", "--json"], capsys)
    assert code == 0
    assert json.loads(out) == {"query_set": "mine", "queries": 1, "judgments": 2, "dangling": 1}
    from palace_lab.store import Palace

    with Palace.open(db) as palace:
        assert palace.qrels() == {"q1": {eid: 3, "xmissing": 1}}
        assert palace.query_sets() == ["mine"]
