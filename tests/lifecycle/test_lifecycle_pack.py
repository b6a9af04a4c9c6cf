"""Memory packs: never over budget (a property), a prefix of the ranking grouped by room, focus
and filters, both formats, the CLI-facing summary."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lifecycle_data import build_palace

from palace_lab.errors import PalaceError
from palace_lab.lifecycle.pack import build_pack
from palace_lab.tokens import count_tokens


@pytest.fixture(scope="module")
def palace(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pack")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PALACE_LAB_CACHE_DIR", str(tmp / "cache"))
        p = build_palace(tmp / "p.db", days=8, per_day=3, projects=("alpha", "beta"))
        yield p
        p.close()


def item_ids_in_text(text: str) -> list[str]:
    return re.findall(r"`(x[0-9a-f]{15})`", text)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=120, max_value=3000), fmt=st.sampled_from(["markdown", "json"]))
def test_a_pack_never_exceeds_its_budget_and_keeps_the_ranking_order(palace, budget, fmt):
    pack = build_pack(palace, budget, fmt=fmt)
    assert pack.tokens == count_tokens([pack.text])[0] <= budget
    chosen = [i.exchange_id for i in pack.items]
    assert chosen == list(pack.ranking[: len(chosen)])  # a prefix of the ranking
    bigger = build_pack(palace, budget + 200, fmt=fmt)
    assert len(bigger.items) >= len(chosen)
    if fmt == "markdown":
        shown = item_ids_in_text(pack.text)
        assert sorted(shown) == sorted(chosen)
        for room in {i.room_key for i in pack.items}:  # within a room: rank order
            members = [e for e in shown if e in {i.exchange_id for i in pack.items if i.room_key == room}]
            assert members == [e for e in chosen if e in members]


def test_a_large_budget_takes_every_card_grouped_by_room(palace):
    pack = build_pack(palace, 39_000)
    assert len(pack.items) == 24 == len(pack.ranking)
    assert pack.text.startswith("# Memory pack\n")
    headers = re.findall(r"^## .+ \(`(.+)`\)$", pack.text, re.M)
    assert headers == list(dict.fromkeys(i.room_key for i in pack.items))
    assert pack.summary()["items"] == 24 and "text" not in pack.summary()


def test_focus_project_and_room_narrow_the_pack(palace):
    focused = build_pack(palace, 5000, focus_query="cache")
    # the focus searches the verbatim text: every card kept is of an exchange that says "cache"
    assert len(focused.ranking) == 8 and all(
        "cache" in palace.exchange(i.exchange_id).verbatim.lower() for i in focused.items)
    assert focused.focus == {"query": "cache"}
    beta = build_pack(palace, 5000, project="beta")
    assert {i.project for i in beta.items} == {"beta"}
    room = beta.items[0].room_key
    in_room = build_pack(palace, 5000, room=room)
    assert in_room.items and {i.room_key for i in in_room.items} == {room}
    assert in_room.focus == {"room": room}


def test_json_packs_parse_and_point_at_exchanges(palace):
    pack = build_pack(palace, 2000, fmt="json")
    data = json.loads(pack.text)
    assert data["memory_pack"]["budget"] == 2000
    ids = [i["exchange_id"] for room in data["rooms"] for i in room["items"]]
    assert sorted(ids) == sorted(i.exchange_id for i in pack.items)


def test_bad_budgets_and_missing_cards_are_clear_errors(palace, tmp_path):
    with pytest.raises(ValueError, match="smaller than the pack header"):
        build_pack(palace, 20)
    with pytest.raises(ValueError, match="positive number of tokens"):
        build_pack(palace, 0)
    with pytest.raises(ValueError, match="valid formats: markdown, json"):
        build_pack(palace, 1000, fmt="yaml")
    with build_palace(tmp_path / "bare.db", days=1, per_day=1, distill=False) as bare:
        with pytest.raises(PalaceError, match="run `palace-lab distill"):
            build_pack(bare, 1000)


def test_bad_inputs_are_input_errors_and_a_mistyped_mode_is_refused(palace):
    from palace_lab.errors import InputError, SearchError

    with pytest.raises(InputError, match="positive number of tokens"):
        build_pack(palace, 0)
    with pytest.raises(SearchError, match="bm25:verbatimm"):  # never a silent term-overlap pack
        build_pack(palace, 5000, focus_query="cache", search_mode="bm25:verbatimm")
    assert build_pack(palace, 5000, focus_query="cache", search_mode="bm25:verbatim").items


def test_each_item_says_what_the_person_asked_redacted(tmp_path):
    from person_palace import ASKED, KIND, SECRET, person_palace

    from palace_lab.store import Palace

    with Palace.open(person_palace(tmp_path), create=False) as palace:
        markdown = build_pack(palace, 2000)
        compact = build_pack(palace, 2000, fmt="json")
    assert f"\n  asked: {ASKED} gh token [REDACTED:{KIND}]\n" in markdown.text
    assert "  asked: rename the column amount to total in the invoices table\n" in markdown.text
    assert [i.request for i in compact.items][:1] and all(i.request for i in compact.items)
    assert f"[REDACTED:{KIND}]" in compact.text and SECRET not in markdown.text + compact.text


def test_a_pack_reads_only_what_it_may_show(palace, monkeypatch):
    """Once the importances are kept, a pack tags no card and reads no whole exchange: only
    the requests of the items that may fit (at 50,000 exchanges: 22 s before)."""
    from palace_lab.lifecycle import pack as packing

    first = build_pack(palace, 600)  # keeps every card's importance
    store = type(palace)
    asked: list[str] = []
    by_id = store.exchanges_by_id

    def whole(*_a, **_k):
        raise AssertionError("every exchange read or every card tagged again")

    monkeypatch.setattr(store, "exchanges", whole)
    monkeypatch.setattr(packing, "tag", whole)  # what importance_of calls
    monkeypatch.setattr(store, "exchanges_by_id", lambda self, ids: asked.extend(ids) or by_id(self, ids))
    again = build_pack(palace, 600)
    assert again.text == first.text and again.ranking == first.ranking
    assert 0 < len(again.items) <= len(asked) < len(again.ranking)
