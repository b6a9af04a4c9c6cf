"""Benchmark loaders on tiny hand-written files, gold → exchange mapping, session recall, the
CLI; and the real dev sets' counts when ../shared/benchmarks is present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from palace_lab.bench import (
    Question, build_palace, load_benchmark, qrels_for, run_benchmark, session_recall,
)
from palace_lab.bench.locomo import evidence_ids, session_time
from palace_lab.errors import PalaceError

SHARED = Path(__file__).resolve().parents[3] / "shared" / "benchmarks"


def _locomo(tmp_path: Path, errata: list | None = None) -> Path:
    sample = {"sample_id": "conv-x", "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a greyhound called Pixel."},
            {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely! How old is Pixel?"},
            {"speaker": "Ann", "dia_id": "D1:3", "text": "She is four.", "img_url": ["x"],
             "blip_caption": "a photo of a grey dog on a sofa"},
            {"speaker": "Bob", "dia_id": "D1:4", "text": "Cute."}],
        "session_3_date_time": "10:00 am on 2 June, 2023",
        "session_3": [
            {"speaker": "Bob", "dia_id": "D3:1", "text": "I started pottery classes."},
            {"speaker": "Ann", "dia_id": "D3:2", "text": "Which studio?"},
            {"speaker": "Bob", "dia_id": "D3:3", "text": "Clayworks on Main Street."}],
        "session_4_date_time": "", "session_4": []},
        "qa": [
            {"question": "What is the dog called?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
            {"question": "Where are the classes?", "answer": "Clayworks", "evidence": ["D3:3; D3:1"], "category": 1},
            {"question": "Malformed id", "answer": "x", "evidence": ["D:1:03"], "category": 2},
            {"question": "Missing turn", "answer": "x", "evidence": ["D9:9"], "category": 4},
            {"question": "Adversarial", "answer": "x", "evidence": ["D1:1"], "category": 5},
            {"question": "Fixed by erratum", "answer": "x", "evidence": ["D1:2"], "category": 3},
            {"question": "Emptied by erratum", "answer": "x", "evidence": ["D1:2"], "category": 4},
        ]}
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps([sample]), "utf-8")
    if errata is not None:
        (tmp_path / "errors_conv_0.json").write_text(json.dumps(errata), "utf-8")
    return path


ERRATA = [{"question_id": "locomo_0_qa5", "correct_evidence": ["D1:3"]},
          {"question_id": "locomo_0_qa6", "correct_evidence": []}]


def test_evidence_ids_normalise_every_malformed_shape():
    assert evidence_ids(["D8:6; D9:17"]) == ["D8:6", "D9:17"]
    assert evidence_ids(["D9:1 D4:4", "D:11:26", "D30:05"]) == ["D9:1", "D4:4", "D11:26", "D30:5"]
    assert evidence_ids("D1:3") == ["D1:3"]
    assert session_time("1:56 pm on 8 May, 2023") == "2023-05-08T13:56:00.000Z"
    assert session_time("") is None


def test_locomo_loader_errata_drops_and_gold(tmp_path):
    bench = load_locomo_file = load_benchmark(_locomo(tmp_path, ERRATA))
    by_id = {q.query_id: q for q in bench.questions}
    assert sorted(by_id) == ["locomo_0_qa0", "locomo_0_qa1", "locomo_0_qa2", "locomo_0_qa5"]
    assert by_id["locomo_0_qa1"].messages == (("conv-x:S3", 2), ("conv-x:S3", 0))
    assert by_id["locomo_0_qa2"].messages == (("conv-x:S1", 2),)    # D:1:03 → D1:3
    assert by_id["locomo_0_qa5"].messages == (("conv-x:S1", 2),)    # erratum replaced D1:2
    assert bench.dropped == {"category 5 (adversarial)": 1, "evidence names a missing turn": 1,
                             "erratum: no turn supports the answer": 1}
    # the caption is part of the turn; Ann (speaker_a) asks, Bob answers; empty session skipped
    turn = [r for r in load_locomo_file.records if r["conversation_id"] == "conv-x:S1"][2]
    assert turn["content"].endswith("[image: a photo of a grey dog on a sofa]")
    assert turn["role"] == "user" and turn["timestamp"] == "2023-05-08T13:56:00.000Z"
    assert {r["conversation_id"] for r in bench.records} == {"conv-x:S1", "conv-x:S3"}


def test_without_errata_the_cited_evidence_stands(tmp_path):
    bench = load_benchmark(_locomo(tmp_path))
    assert {q.query_id for q in bench.questions} >= {"locomo_0_qa5", "locomo_0_qa6"}


def _devmem(tmp_path: Path) -> Path:
    sessions = [
        {"sessionId": "S01", "metadata": {"date": "2025-01-15", "project": "shop"}, "messages": [
            {"role": "user", "content": "Use FastAPI with PostgreSQL for the shop API."},
            {"role": "assistant", "content": "Set up FastAPI and PostgreSQL."},
            {"role": "user", "content": "Add Redis caching."},
            {"role": "assistant", "content": "Redis cache added for product pages."}]},
        {"sessionId": "S02", "metadata": {"date": "2025-01-20", "project": "blog"}, "messages": [
            {"role": "user", "content": "The blog uses Hugo."},
            {"role": "assistant", "content": "Hugo site scaffolded."}]}]
    questions = [
        {"questionId": "Q1", "questionType": "tech-stack", "question": "Which cache does the shop use?",
         "groundTruth": "Redis", "haystackSessionIds": ["S01"]},
        {"questionId": "Q2", "questionType": "abstention", "question": "What CI?",
         "groundTruth": "unknown", "haystackSessionIds": []},
        {"questionId": "Q3", "questionType": "tech-stack", "question": "Blog generator?",
         "groundTruth": "Hugo", "haystackSessionIds": ["S09"]}]
    (tmp_path / "sessions.json").write_text(json.dumps(sessions), "utf-8")
    (tmp_path / "questions.json").write_text(json.dumps(questions), "utf-8")
    return tmp_path


def test_devmembench_session_gold_and_abstention(tmp_path):
    bench = load_benchmark(_devmem(tmp_path))
    assert bench.name == "devmembench" and bench.gold == "session"
    assert [q.query_id for q in bench.questions] == ["Q1"]
    assert bench.dropped == {"abstention (no answer in the data)": 1, "no known gold session": 1}


def _longmem(tmp_path: Path) -> Path:
    items = [
        {"question_id": "q1", "question_type": "single-session-user", "question": "What car did I buy?",
         "answer": "a Civic", "question_date": "2023/05/30 (Tue) 10:00",
         "haystack_session_ids": ["a", "b"], "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 09:00"],
         "answer_session_ids": ["b"],
         "haystack_sessions": [
             [{"role": "user", "content": "Recipe ideas for dinner?"}, {"role": "assistant", "content": "Try risotto."}],
             [{"role": "user", "content": "I just bought a Honda Civic!", "has_answer": True},
              {"role": "assistant", "content": "Congratulations on the Civic."}]]},
        {"question_id": "q2", "question_type": "multi-session", "question": "Where do I run?",
         "answer": "the park", "haystack_session_ids": ["c"], "haystack_dates": ["2023/05/20 (Sat) 02:21"],
         "answer_session_ids": ["c"],
         "haystack_sessions": [[{"role": "user", "content": "I run in Hyde Park."},
                                {"role": "assistant", "content": "Nice route."}]]},
        {"question_id": "q3_abs", "question_type": "single-session-user", "question": "My cat's name?",
         "answer": "n/a", "haystack_session_ids": ["d"], "haystack_dates": [], "answer_session_ids": [],
         "haystack_sessions": [[{"role": "user", "content": "hi"}]]}]
    path = tmp_path / "longmemeval_s_tiny.json"
    path.write_text(json.dumps(items), "utf-8")
    return path


def test_longmemeval_message_gold_session_fallback_and_abstention(tmp_path):
    bench = load_benchmark(_longmem(tmp_path))
    q1, q2 = bench.questions
    assert q1.messages == (("q1:b", 0),) and q1.sessions == ("q1:b",) and q1.project == "q1"
    assert q2.messages == () and q2.sessions == ("q2:c",)
    assert bench.dropped == {"abstention (no answer in the haystack)": 1}
    assert {r["timestamp"] for r in bench.records if r["conversation_id"] == "q1:a"} == {
        "2023-05-20T02:21:00.000Z"}


def test_gold_maps_to_the_exchange_holding_the_message(tmp_path):
    bench = load_benchmark(_longmem(tmp_path))
    palace = build_palace(bench, tmp_path / "lme.db")
    try:
        exchanges = {e.conversation_id: e for e in palace.exchanges()}
        qrels = qrels_for(bench.questions, palace.exchanges())
        assert qrels == {"q1": {exchanges["q1:b"].exchange_id: 1},
                         "q2": {exchanges["q2:c"].exchange_id: 1}}
        unmappable = Question("x", "?", "t", messages=(("q1:b", 99),))
        assert qrels_for([unmappable], palace.exchanges()) == {}
    finally:
        palace.close()


def test_session_recall_counts_distinct_sessions_by_hand():
    q = Question("q", "?", "t", sessions=("s3",))
    run = {"q": {"e1": 0.9, "e2": 0.8, "e3": 0.7, "e4": 0.6}}
    conv = {"e1": "s1", "e2": "s1", "e3": "s2", "e4": "s3"}
    # distinct sessions ranked: s1, s2, s3 → s3 is third
    assert session_recall(run, [q], conv, ks=(2, 3)) == {"R@2": 0.0, "R@3": 1.0}


def test_run_benchmark_reports_the_table_and_session_recall(tmp_path):
    bench = load_benchmark(_devmem(tmp_path))
    palace = build_palace(bench, tmp_path / "dmb.db")
    try:
        report = run_benchmark(bench, palace, ["bm25:verbatim", "bm25:core+keywords"], embedder="fake")
    finally:
        palace.close()
    d = report.to_dict()
    assert d["benchmark"]["questions"] == 1 and d["benchmark"]["exchanges"] == 3
    assert {r["mode"] for r in d["modes"]} == {"bm25:verbatim", "bm25:core+keywords"}
    # "cache" is in the Redis exchange only: first hit, session S01 found
    assert next(r for r in d["modes"] if r["mode"] == "bm25:verbatim")["mrr"] == 1.0
    assert d["session_recall"]["bm25:verbatim"]["R@5"] == 1.0
    assert "session R@5" in report.to_markdown()


def test_cli_bench_json_and_refusal(tmp_path, capsys):
    from palace_lab.cli import main

    assert main(["bench", str(_devmem(tmp_path)), "--modes", "bm25:verbatim", "--embedder", "fake",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["benchmark"]["benchmark"] == "devmembench"
    (tmp_path / "other").mkdir()
    assert main(["bench", str(tmp_path / "other")]) == 1
    assert "no benchmark found" in capsys.readouterr().err


def test_cli_bench_keep_stores_a_query_set(tmp_path):
    from palace_lab.cli import main
    from palace_lab.store import Palace

    keep = tmp_path / "kept.db"
    assert main(["bench", str(_devmem(tmp_path)), "--modes", "bm25:verbatim", "--embedder", "fake",
                 "--keep", str(keep), "--json"]) == 0
    with Palace.open(keep, create=False) as palace:
        assert [q["query_id"] for q in palace.queries()] == ["Q1"]


def test_unknown_benchmark_file_is_refused(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]", "utf-8")
    with pytest.raises(PalaceError, match="not a benchmark"):
        load_benchmark(bad)


@pytest.fixture
def shared_benchmarks() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"public dev sets not found at {SHARED} (../shared/benchmarks)")
    return SHARED


def test_locomo_dev_counts_match_the_published_facts(shared_benchmarks):
    from collections import Counter

    bench = load_benchmark(shared_benchmarks / "locomo")
    assert len(bench.questions) == 760
    # the file itself is recognised too (its first 20 kB are questions, not the conversation)
    assert len(load_benchmark(shared_benchmarks / "locomo" / "locomo10_dev.json").questions) == 760
    per_sample = Counter(q.project for q in bench.questions)
    assert [per_sample[s] for s in ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")] == [
        150, 81, 152, 199, 178]


def test_devmembench_dev_counts(shared_benchmarks):
    bench = load_benchmark(shared_benchmarks / "devmembench")
    assert len(bench.questions) == 175 and bench.dropped == {"abstention (no answer in the data)": 25}
