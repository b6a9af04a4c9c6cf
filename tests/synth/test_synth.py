"""The synthetic corpus: same bytes for a seed, exact exchange counts, qrels that resolve."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from palace_lab.ingest import ingest_paths
from palace_lab.model import exchange_id_for
from palace_lab.store import Palace
from palace_lab.synth import QUERY_TYPES, generate, main

N = 300
INTENDED_SKIPS = {"record:progress", "record:file-history-snapshot"}


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth")
    summary = generate(out / "corpus", exchanges=N, queries=60)
    palace = Palace.open(out / "palace.db")
    report = ingest_paths(palace, [summary.sessions_dir])
    yield summary, palace, report
    palace.close()


def _qrels(summary) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in Path(summary.qrels_path).read_text().splitlines():
        qid, _, xid, grade = line.split()
        out.setdefault(qid, {})[xid] = int(grade)
    return out


def _queries(summary) -> list[dict]:
    return [json.loads(x) for x in Path(summary.queries_path).read_text().splitlines()]


def test_same_seed_gives_same_bytes(tmp_path):
    a = generate(tmp_path / "a", exchanges=80, seed=7)
    b = generate(tmp_path / "b", exchanges=80, seed=7)
    c = generate(tmp_path / "c", exchanges=80, seed=8)
    assert _tree(Path(a.out_dir)) == _tree(Path(b.out_dir))
    assert _tree(Path(a.out_dir)) != _tree(Path(c.out_dir))
    def counts(s):
        return {k: v for k, v in s.to_dict().items() if not k.endswith(("dir", "path"))}

    assert counts(a) == counts(b)


def test_ingest_yields_the_requested_exchanges(corpus):
    summary, palace, report = corpus
    assert summary.exchanges == N
    assert palace.count("exchanges") == N
    assert palace.count("conversations") == summary.conversations == summary.files
    assert report.totals()["exchanges"] == N


def test_only_the_intended_record_types_are_skipped(corpus):
    summary, _, report = corpus
    skipped = report.totals()["skipped"]
    assert set(skipped) == INTENDED_SKIPS
    assert skipped == summary.skipped_records
    assert all(s.error is None and s.format == "claude-code" for s in report.sources)


def test_exchange_ids_are_those_of_the_request_records(corpus):
    summary, palace, _ = corpus
    expected = set()
    for path in Path(summary.sessions_dir).rglob("*.jsonl"):
        for line in path.read_text("utf-8").splitlines():
            rec = json.loads(line)
            if rec["type"] == "user" and isinstance(rec["message"]["content"], str):
                expected.add(exchange_id_for(rec["sessionId"], rec["uuid"]))
    assert expected == {e.exchange_id for e in palace.exchanges()}


def test_qrels_resolve_and_every_query_has_one_target(corpus):
    summary, palace, _ = corpus
    ids = {e.exchange_id for e in palace.exchanges()}
    qrels = _qrels(summary)
    queries = _queries(summary)
    assert len(queries) == summary.queries == 60
    assert {q["type"] for q in queries} == set(QUERY_TYPES)
    assert {q["query_id"] for q in queries} == set(qrels)
    for qid, grades in qrels.items():
        assert set(grades) <= ids
        assert sorted(grades.values()).count(3) == 1, qid
        assert set(grades.values()) <= {1, 2, 3}


def test_known_item_queries_name_what_only_their_target_contains(corpus):
    summary, palace, _ = corpus
    verbatim = {e.exchange_id: e.verbatim for e in palace.exchanges()}
    qrels = _qrels(summary)
    for q in _queries(summary):
        target = next(x for x, g in qrels[q["query_id"]].items() if g == 3)
        if q["type"] == "error":
            needle = q["query"]
        elif q["type"] == "exact_term":
            needle = max(q["query"].split(), key=len)  # the minted identifier
        else:
            continue
        holders = [x for x, text in verbatim.items() if needle in text]
        assert holders == [target], (q, holders)
    error_queries = [q["query"] for q in _queries(summary) if q["type"] == "error"]
    assert all(re.search(r"\d{4}", text) for text in error_queries)


def test_session_files_follow_the_claude_code_layout(corpus):
    summary, _, _ = corpus
    files = sorted(Path(summary.sessions_dir).glob("*/*.jsonl"))
    assert len(files) == summary.files
    assert {p.parent.name for p in files} == {f"-home-dev-src-{p}" for p in summary.projects}
    first = [json.loads(line) for line in files[0].read_text().splitlines()]
    assert first[0]["type"] == "file-history-snapshot"
    assert first[1]["type"] == "user" and first[1]["parentUuid"] is None
    assert first[0]["messageId"] == first[1]["uuid"]
    for prev, rec in zip(first, first[1:]):
        if rec["type"] == "assistant":
            assert len(rec["message"]["content"]) == 1  # one content block per line
            assert rec["parentUuid"] == prev.get("uuid")


def test_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "x.txt").write_text("keep me")
    with pytest.raises(ValueError, match="not empty"):
        generate(tmp_path, exchanges=5)
    with pytest.raises(ValueError, match="projects"):
        generate(tmp_path / "new", exchanges=5, projects=7)


def test_cli_prints_a_json_summary(tmp_path, capsys):
    assert main([str(tmp_path / "out"), "--exchanges", "12", "--seed", "3", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["exchanges"] == 12
    assert Path(summary["qrels_path"]).exists()
