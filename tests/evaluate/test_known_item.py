"""Known-item queries made from a small hand-written palace of exchanges."""

import pytest

from palace_lab.evaluate.known_item import BIAS, QUERY_TYPES, known_item_queries, save_known_items
from palace_lab.files import files_touched
from palace_lab.model import Exchange

PAIRS = [
    ("Why does the connection pool time out after thirty seconds on the staging servers?",
     "The setting pool.max_size is too small. Edit config/db.yaml and raise retry_backoff_ms.\n"
     "TimeoutError: pool exhausted after 30000 ms"),
    ("Please add a retry wrapper around the payment client so that flaky calls recover",
     "Added PaymentClient.with_retry in src/payments/client.py using retry_backoff_ms"),
    ("The tests fail with a missing key when the user has no profile picture set yet",
     "KeyError: 'avatar_url' raised in app/views/profile.py; fixed with dict.get"),
    ("Rename the helper function that formats dates in the reporting module please",
     "Renamed fmtDate to format_report_date in reports/dates.py"),
    ("Explain how the nightly backup job chooses which snapshots to keep around",
     "The job keeps seven daily and four weekly snapshots; see backup/retention.py keep_weekly"),
    ("Can you make the search box ignore accents when people type names in it",
     "Used unicodedata.normalize with NFKD in search/normalise.py"),
    ("The docker build breaks on the arm laptops after the base image update",
     "error: failed to solve: platform linux/arm64 not supported by python:3.12-slim"),
    ("Set up a weekly digest email that lists the open pull requests for the team",
     "Added weekly_digest job to scheduler/jobs.py with a cron of 0 9 * * MON"),
]


def exchanges():
    out = []
    for i, (request, answer) in enumerate(PAIRS):
        text = f"[user] {request}\n\n[assistant] {answer}"
        out.append(Exchange(f"x{i:02d}", "c1", 2 * i, 2 * i + 1, request, text, text, files_touched(text)))
    return out


def norm(text):
    return " ".join(text.lower().split())


def test_deterministic_for_a_seed_whatever_the_input_order():
    first = known_item_queries(exchanges(), n=10, seed=4)
    again = known_item_queries(list(reversed(exchanges())), n=10, seed=4)
    assert first == again
    assert len(first.queries) >= 5


def test_every_query_comes_from_its_source_and_grades_follow_the_rule():
    items = known_item_queries(exchanges(), n=20, seed=1, source="verbatim")
    texts = {ex.exchange_id: norm(ex.verbatim) for ex in exchanges()}
    for query in items.queries:
        qid, source = query["query_id"], items.meta["sources"][query["query_id"]]
        assert items.qrels[qid][source] == 3
        if query["type"] != "mixed":
            assert norm(query["query"]) in texts[source]
            containing = {e for e, t in texts.items() if norm(query["query"]) in t}
            assert items.qrels[qid] == {e: (3 if e == source else 2) for e in containing}


def test_a_recurring_string_grades_the_other_exchange_two():
    def ex(eid, text):
        return Exchange(eid, "c", 0, 1, "", text, text, ())

    corpus = [ex("a1", "set retry_backoff_ms to 200"), ex("a2", "Retry_Backoff_ms  is 200 now"),
              ex("a3", "nothing here"), ex("a4", "unrelated words only")]
    items = known_item_queries(corpus, n=4, types=("exact_term",), max_df=2)
    assert [q["query"].lower() for q in items.queries] == ["retry_backoff_ms"]  # never twice
    source = items.meta["sources"]["ki0001"]
    other = {"a1": "a2", "a2": "a1"}[source]
    assert items.qrels["ki0001"] == {source: 3, other: 2}


def test_max_df_excludes_strings_found_in_too_many_exchanges():
    items = known_item_queries(exchanges(), n=len(PAIRS), seed=0, types=("exact_term",), max_df=1)
    assert all(q["query"] != "retry_backoff_ms" for q in items.queries)
    assert all(list(grades.values()) == [3] for grades in items.qrels.values())


def test_types_are_spread_and_shortfall_reported():
    items = known_item_queries(exchanges(), n=10, seed=2)
    assert set(items.meta["types"]) == set(QUERY_TYPES)
    made = sum(items.meta["types"].values())
    assert made == items.meta["n_made"] == len(items.queries)
    assert sum(items.meta["shortfall"].values()) == 10 - made
    assert items.meta["types"]["error"] >= 1 and items.meta["types"]["file_path"] >= 1
    assert len({items.meta["sources"][q["query_id"]] for q in items.queries}) == made  # one per exchange


def test_bias_is_stated_in_the_metadata():
    items = known_item_queries(exchanges(), n=3)
    assert items.meta["bias"] == BIAS
    assert "lexical" in BIAS and "conceptual recall" in BIAS


def test_unknown_type_lists_the_valid_ones():
    with pytest.raises(ValueError, match="valid types: exact_term, file_path, error, conceptual, mixed"):
        known_item_queries(exchanges(), types=("vague",))


def test_saved_into_the_palace(tmp_path):
    from palace_lab.store import Palace

    items = known_item_queries(exchanges(), n=6, seed=3)
    with Palace.open(tmp_path / "p.db") as palace:
        save_known_items(palace, items)
        assert palace.qrels(judge="qrels:known_item") == items.qrels
        assert [q["query"] for q in palace.queries("known_item")] == [
            q["query"] for q in sorted(items.queries, key=lambda q: q["query_id"])]


def test_the_dialogue_source_never_copies_tool_output_and_recalls_requests_as_word_bags():
    def ex(eid, request, tool):
        said = f"[user] {request}\n\n[assistant] done, see the log"
        text = f"{said}\n\n[tool result] {tool}"
        return Exchange(eid, "c", 0, 2, request, text, said, ())

    corpus = [ex(f"e{i}", f"please make the nightly {w} report export faster for finance team {i}",
                 f"Traceback: ValueError: bad row {i} in frame_{w}_{i}.rows")
              for i, w in enumerate(["sales", "stock", "wages", "taxes", "costs", "leads"])]
    old = known_item_queries(corpus, n=12, seed=0, source="verbatim")
    new = known_item_queries(corpus, n=12, seed=0)
    assert new.meta["source"] == "dialogue" and old.meta["source"] == "verbatim"
    assert any("ValueError" in q["query"] or "frame_" in q["query"] for q in old.queries)
    assert not any("ValueError" in q["query"] or "frame_" in q["query"] for q in new.queries)
    bags = [q for q in new.queries if q["type"] == "conceptual"]
    assert bags
    for q in bags:
        source = next(e for e in corpus if e.exchange_id == new.meta["sources"][q["query_id"]])
        words = q["query"].split()
        assert len(words) == 4 and all(w in source.request.lower() for w in words)
        assert q["query"] not in source.request.lower()  # a bag, not the copied phrase
        assert new.qrels[q["query_id"]][source.exchange_id] == 3


def test_an_unknown_source_lists_the_valid_ones():
    with pytest.raises(ValueError, match="valid sources: dialogue, verbatim"):
        known_item_queries(exchanges(), source="tools")
