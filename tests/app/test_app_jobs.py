"""The lab's jobs through AppTest: one's own history in a palace of its own (the sample one
click away, the sidebar saying what is open), the Overview's story with figures computed ahead,
a Search lab that can be narrowed and says where hits come from, a full-width paged reader."""

from __future__ import annotations

from pathlib import Path

import pytest

import lab_palaces
from palace_lab.store import Palace
from test_app import app_env, built, clean, exchange_of, grade_controls, lab, start  # noqa: F401


@pytest.fixture
def two_homes(app_env, tmp_path, monkeypatch):  # noqa: F811
    """The open palace is the sample's; one's own palaces go to ``tmp/own``."""
    monkeypatch.setenv("PALACE_LAB_SAMPLE_DB", str(app_env))
    monkeypatch.setenv("PALACE_LAB_PALACES", str(tmp_path / "own"))
    return app_env, tmp_path / "own"


def sidebar_text(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


def test_own_history_goes_into_a_palace_of_its_own(two_homes, tmp_path, monkeypatch):
    sample, own = two_homes
    before = Palace.open(sample).count("exchanges")
    history = lab_palaces.write_history(tmp_path / "mine")
    at = start("pages/load.py")
    at.radio(key="load_source").set_value("Local folder or file").run()
    assert any("a palace of its own" in c.value for c in at.caption)
    at.text_input(key="load_path").input(str(history)).run()
    at.button(key="load_path_go").click().run()
    clean(at)
    with Palace.open(own / "my-history.db") as mine:
        assert mine.count("exchanges") == 6
    with Palace.open(sample) as s:
        assert s.count("exchanges") == before  # the sample was not touched
    mine = str((own / "my-history.db").resolve())
    assert at.session_state["db_path"] == mine
    # the sidebar (AppTest keeps it for the first run only: a fresh session on that palace)
    monkeypatch.setenv("PALACE_LAB_DB", mine)
    at = start()
    clean(at)
    text = sidebar_text(at)
    assert "6 exchanges" in text and "**2 projects:** demo (3), other (3)" in text
    assert at.selectbox(key="sb_palace").value == mine
    # the sample is one click away, and the own palace stays in the list
    assert at.selectbox(key="sb_palace").options == ["my-history", "Bundled sample"]
    at.button(key="sb_sample").click().run()
    clean(at)
    assert at.session_state["db_path"] == str(sample.resolve())
    assert any(t.value.startswith("Your agent memory") for t in at.title)


def test_the_sample_is_never_loaded_into_ones_own_palace(two_homes, tmp_path, monkeypatch):
    sample, own = two_homes
    lab_palaces.build(own / "mine.db").close()
    monkeypatch.setenv("PALACE_LAB_SAMPLE_DB", str(tmp_path / "fresh-sample.db"))
    monkeypatch.setenv("PALACE_LAB_DB", str(own / "mine.db"))
    at = start("pages/load.py")
    assert any("the sample goes into its own palace" in c.value for c in at.caption)
    at.button(key="load_sample").click().run()
    clean(at)
    with Palace.open(own / "mine.db") as mine:
        assert mine.count("exchanges") == 6
    with Palace.open(tmp_path / "fresh-sample.db") as s:
        assert s.count("exchanges") > 6
    assert Path(at.session_state["db_path"]) == (tmp_path / "fresh-sample.db").resolve()


def test_overview_tells_the_story_with_figures_computed_ahead(app_env):  # noqa: F811
    from palace_lab.experiments.story import default_query_set, main_version, retrieval_figures

    with Palace.open(app_env) as palace:
        kept = retrieval_figures(palace, distiller=main_version(palace), embedder="fake",
                                 query_set=default_query_set(palace))
    at = start()
    clean(at)
    values = {m.label: m.value for m in at.metric}
    assert values["The paper"] == "11x"
    assert values["Retrieval kept"] == f"{kept['distilled_over_verbatim']:.0%}"
    from palace_lab.budget import palace_budget

    with Palace.open(app_env) as palace:
        summary, _ = palace_budget(palace, main_version(palace))
    d = summary.to_dict()
    # the layer distilled search indexes (core + keywords for rules:v3), not the bare core
    assert d["distilled_layer"] == "searched"
    said = d["compression"]["dialogue_over_searched"]["ratio_of_totals"]
    assert d["headline"]["ratio"] == said  # the one headline: dialogue over the searched layer
    assert values["How much smaller"] == f"{said:.1f}x"
    assert "With tool output" not in values  # the other ratio is one step away, in the table
    lead = at.markdown[0].value
    assert "smaller**, where the paper reports **11x**" in lead and "tool calls" in lead
    assert f"**{kept['distilled_over_verbatim']:.0%}**" in lead
    assert not [b for b in at.button if b.key == "ov_compute"]  # no button, no wait
    table = at.dataframe[0].value
    assert list(table.columns) == ["ratio of totals", "mean of per-exchange ratios", "paper"]


def test_overview_computes_the_figures_on_request_when_not_cached(app_env):  # noqa: F811
    at = start()
    clean(at)
    buttons = [b for b in at.button if b.key == "ov_compute"]
    if buttons:  # indexes not built yet in this copy
        buttons[0].click().run()
        clean(at)
    assert {m.label for m in at.metric} >= {"Best verbatim MRR", "Retrieval kept"}
    assert [m.value for m in at.metric if m.label == "Retrieval kept"][0].endswith("%")


def test_search_lab_filters_by_project_and_date_and_says_where_hits_come_from(app_env):  # noqa: F811
    at = start("pages/search_lab.py")
    projects = at.selectbox(key="lab_f_project").options[1:]
    assert projects
    chosen = projects[0]
    at.selectbox(key="lab_f_project").set_value(chosen)
    at.text_input(key="lab_query").input("error in the tests").run()
    clean(at)
    with Palace.open(app_env) as palace:
        ids = [exchange_of(c) for c in grade_controls(at, "a")]
        assert ids and {palace.exchange(i).project for i in ids} == {chosen}
    origins = [c.value for c in at.caption if c.value.startswith("#")]
    assert origins and all(f"**{chosen}" in o.replace("\\", "") for o in origins)
    # a date range that holds nothing: no hits, said plainly
    at.text_input(key="lab_f_since").input("1990-01-01")
    at.text_input(key="lab_f_until").input("1990-01-02").run()
    clean(at)
    assert not grade_controls(at, "a")
    assert any("No results" in i.value for i in at.info)
    # a date that is no date is one clear error
    at.text_input(key="lab_f_until").input("last week").run()
    assert not at.exception and "not an ISO date" in at.error[0].value


def test_a_query_of_words_the_palace_does_not_hold_is_warned_about(app_env):  # noqa: F811
    at = lab("zorblax quuxify")
    assert any("None of this query's words" in w.value for w in at.warning)
    assert not any("None of this query's words" in w.value for w in lab("connection timeout").warning)


def test_the_reader_pages_long_messages_and_collapses_tool_output(tmp_path, monkeypatch):
    long = "x" * 9_500
    lab_palaces.build(tmp_path / "p.db", extra=[
        {"conversation_id": "c-long", "role": "user", "content": "explain the longwinded thing",
         "timestamp": "2025-07-01T10:00:00Z", "project": "demo"},
        {"conversation_id": "c-long", "role": "assistant", "content": long}]).close()
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "p.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    at = lab("longwinded")
    first = exchange_of(grade_controls(at, "a")[0])
    [b for b in at.button if b.key == f"lab_read_a_{first}"][0].click().run()
    clean(at)
    assert at.session_state["lab_read"] == first
    part = [n for n in at.number_input if n.label == "Part (of 3)"]
    assert part, [n.label for n in at.number_input]
    assert "x" * 4000 in [t.value for t in at.text]
    part[0].set_value(3).run()
    clean(at)
    assert "x" * 1500 in [t.value for t in at.text]
    at.button(key="lab_read_close").click().run()
    assert at.session_state["lab_read"] is None


def test_tool_output_is_monospace_and_collapsed_with_its_size(app_env):  # noqa: F811
    with Palace.open(app_env) as palace:
        row = palace.conn.execute(
            "SELECT e.exchange_id, m.position FROM exchanges e JOIN messages m ON m.conversation_id ="
            " e.conversation_id AND m.position BETWEEN e.ply_start AND e.ply_end"
            " WHERE m.role = 'tool_result' LIMIT 1").fetchone()
    assert row is not None, "the sample carries tool output"
    at = start("pages/search_lab.py")
    at.session_state["lab_read"] = row[0]
    at.text_input(key="lab_query").input("anything at all").run()
    clean(at)
    tools = [e for e in at.expander if "tool_result" in e.label.replace("\\", "")]
    assert tools and all("characters" in e.label for e in tools)
    assert not at.code  # collapsed: not even sent to the page
    at.session_state[f"lab_rd_{row[0]}_{row[1]}_open"] = True
    at.run()
    clean(at)
    assert at.code  # the opened tool output, monospace


def test_search_lab_filters_by_room(app_env):  # noqa: F811
    at = start("pages/search_lab.py")
    room = at.selectbox(key="lab_f_room").options[1]  # shown as "type · label"
    at.selectbox(key="lab_f_room").set_value(room)
    at.text_input(key="lab_query").input("fix the failing test").run()
    clean(at)
    key = at.session_state["lab_f_room"]
    with Palace.open(app_env) as palace:
        version = palace.distiller_versions()[0]["version"]
        cards = {c.exchange_id: c for c in palace.cards(version)}
    ids = [exchange_of(c) for c in grade_controls(at, "a")]
    assert ids and all(key in {r.room_key for r in cards[i].room_assignments} for i in ids)


def test_the_lab_watches_no_files(monkeypatch):
    from palace_lab.cli import app as app_launcher

    seen = {}
    monkeypatch.setattr(app_launcher.subprocess, "call", lambda cmd, **kw: seen.setdefault("cmd", cmd) and 0)
    app_launcher.launch(headless=True)
    cmd = seen["cmd"]
    assert cmd[cmd.index("--server.fileWatcherType") + 1] == "none"


@pytest.mark.parametrize("terminal", [True, False])
def test_a_start_without_a_terminal_is_headless(monkeypatch, terminal):
    """Streamlit's first-run e-mail prompt would end a start that has no terminal to answer it."""
    from palace_lab.cli import app as app_launcher

    seen = {}
    monkeypatch.setattr(app_launcher.subprocess, "call", lambda cmd, **kw: seen.setdefault("cmd", cmd) and 0)
    monkeypatch.setattr(app_launcher.sys.stdin, "isatty", lambda: terminal)
    app_launcher.launch()
    cmd = seen["cmd"]
    assert cmd[cmd.index("--server.headless") + 1] == ("false" if terminal else "true")


def test_uploads_leave_no_folder_behind():
    from ui.loading import saved_uploads

    class Upload:
        name, data = "../history.jsonl", b'{"role": "user", "content": "hi"}\n'

        def getbuffer(self):
            return self.data

    with saved_uploads([Upload()]) as folder:
        assert [p.name for p in folder.iterdir()] == ["history.jsonl"]  # no path from the name
    assert not folder.exists()


def test_figures_say_what_they_cover_for_a_partial_card_version(tmp_path, monkeypatch):
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace

    with lab_palaces.build(tmp_path / "p.db") as palace:
        trial = get_distiller("rules", context_chars=30)
        distill_palace(palace, trial, exchange_ids=list(lab_palaces.exchange_ids(palace).values())[:2])
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "p.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    at = start()
    clean(at)
    assert not at.warning  # the full version is the default
    assert "6 cards of rules" in sidebar_text(at)  # the chosen version's cards, not all versions'
    at.session_state["distiller"] = trial.version
    at.run()
    clean(at)
    assert any("Only 2 of the 6 exchanges have a card" in w.value for w in at.warning)


def test_metrics_before_any_grade_say_why_they_are_zero(app_env):  # noqa: F811
    at = lab("connection pool timeout")
    assert any("Nothing graded yet" in i.value and "3** what I was looking for" in i.value
               for i in at.info)
    mrr = [m for m in at.metric if m.label == "MRR"]
    assert len(mrr) == 2 and not mrr[1].delta  # no green "+0.000" before a grade
    assert "first relevant result" in mrr[0].help
