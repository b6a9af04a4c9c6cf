"""A tiny palace of four exchanges whose target carries one marker word per layer (see
tests/search/test_search_modes.py), with hand-written cards: the search and index tests share it."""

from __future__ import annotations

import pytest
from conftest import write_jsonl

from palace_lab.distill.base import DistillOutcome
from palace_lab.ingest import ingest_paths
from palace_lab.model import DistilledCard, Room

MARKERS = {"zebrafish": {"verbatim"},
           "quokka": {"core", "core+files", "core+rooms", "core+keywords", "all"},
           "narwhal": {"core+files", "all"}, "axolotl": {"core+rooms", "all"},
           "pangolin": {"core+keywords", "all"}}
TARGET = "c-target"


def _conversation(cid, project, day, request, answer, tool=None):
    rows = [{"conversation_id": cid, "role": "user", "content": request, "project": project,
             "timestamp": f"2024-05-{day:02d}T10:00:00Z"},
            {"conversation_id": cid, "role": "assistant", "content": answer}]
    if tool:
        rows.append({"conversation_id": cid, "role": "tool", "content": tool})
    return rows


def _records(target_answer="We tuned the retry loop and it works now."):
    return (
        _conversation(TARGET, "alpha", 1, "Please look at the retry loop in the worker",
                      target_answer, tool="log: zebrafish batch finished")
        + _conversation("c-csv", "alpha", 2, "Keep leading zeros when reading the csv file",
                        "Pass dtype=str to read_csv so ids stay strings.")
        + _conversation("c-ci", "beta", 3, "Why does the CI job stay green when tests fail?",
                        "The step sets continue-on-error: true, which hides failures.")
        + _conversation("c-docs", "beta", 4, "Write the README section about installation",
                        "Added an install section with the pip command."))


def _card(exchange_id, distiller, core, context, files=(), rooms=(), keywords=()):
    return DistilledCard(exchange_id, distiller, core, context, tuple(rooms), tuple(files),
                         keywords=tuple(keywords))


def _put_cards(palace, distiller="hand:v1", target_core="Tuned the quokka retry loop."):
    by_conv = {e.conversation_id: e for e in palace.exchanges()}
    cards = [
        _card(by_conv[TARGET].exchange_id, distiller, target_core, "max_retries=5",
              files=("src/narwhal.py",),
              rooms=(Room("concept", "axolotl_tuning", "Axolotl tuning", 0.9),),
              keywords=("pangolin", "backoff")),
        _card(by_conv["c-csv"].exchange_id, distiller, "Kept leading zeros in the csv reader.",
              "dtype=str", rooms=(Room("concept", "csv_dtypes", "CSV dtypes", 0.8),)),
        _card(by_conv["c-ci"].exchange_id, distiller, "CI hid failures with continue-on-error.",
              "continue-on-error: true", files=(".github/workflows/ci.yml",)),
    ]  # c-docs gets no card: it is absent from the distilled layers
    palace.register_distiller(distiller, "hand")
    palace.put_cards([DistillOutcome(c) for c in cards],
                     {e.exchange_id: e.hash for e in by_conv.values()})
    return by_conv


@pytest.fixture
def tiny(palace, tmp_path):
    ingest_paths(palace, [write_jsonl(tmp_path / "history.jsonl", _records())])
    by_conv = _put_cards(palace)
    return palace, by_conv
