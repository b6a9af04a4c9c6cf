"""The Streamlit app through AppTest: every page from the entry point, the A/B lab's grading and
mode switching, evaluation and tuning actions, and the layout rules (pages registered, thin).

The palace is built once per session from the bundled sample when it is complete, otherwise
from a small synthetic history (palace_lab.synth), and copied for each test. The ``fake``
embedder keeps these tests fast; the browser test uses the real model.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
from app_pages import clean, start

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
MAX_PAGE_LINES = 150
TABBED = {"pages/rooms.py": ("rooms_tab", ["Room map", "Embedding space", "Rooms together", "Drill-down"]),
          "pages/evaluation.py": ("eval_tab", ["Query sets", "All modes", "Significance", "Sweep"]),
          "pages/tuning.py": ("tune_tab", ["Card versions", "Fusion knobs", "Grid search"])}


def sample_source(tmp: Path) -> Path:
    """The bundled sample when it is built, else a synthetic history of the same layout."""
    sample = ROOT / "sample_data"
    if (sample / "claude_code").is_dir() and (sample / "queries.jsonl").is_file():
        return sample
    from palace_lab.synth import generate

    generate(tmp / "synth", exchanges=60, projects=3, queries=40, seed=3)
    return tmp / "synth"


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """(palace file, sample folder): ingested, distilled by rules, the sample queries stored."""
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.experiments.query_sets import import_query_files
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    tmp = tmp_path_factory.mktemp("app_palace")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PALACE_LAB_CACHE_DIR", str(tmp / "cache"))
        mp.setenv("HOME", str(tmp / "home"))
        source = sample_source(tmp)
        with Palace.open(tmp / "palace.db") as palace:
            ingest_paths(palace, [d for d in (source / "claude_code", source / "codex",
                                              source / "chatgpt") if d.exists()])
            distill_palace(palace, get_distiller("rules"))
            import_query_files(palace, source / "queries.jsonl", source / "qrels.txt")
    return tmp / "palace.db", source


@pytest.fixture
def app_env(tmp_path, monkeypatch, built):
    db, source = built
    shutil.copy(db, tmp_path / "palace.db")
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "palace.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    monkeypatch.setenv("PALACE_LAB_SAMPLE_DIR", str(source))
    return tmp_path / "palace.db"


# ------------------------------------------------------------------------------ every page


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_from_the_entry_point(app_env, page):
    at = start(page)
    clean(at)
    key, labels = TABBED.get(page, (None, []))
    for label in labels:
        at.session_state[key] = label
        at.run()
        clean(at)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_an_empty_palace(tmp_path, monkeypatch, page):
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "empty.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    at = start(page)
    assert not at.exception, [e.value for e in at.exception]


def test_every_page_file_is_registered_and_thin():
    tree = ast.parse((ROOT / "app.py").read_text())
    registered = {node.value for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and re.fullmatch(r"pages/\w+\.py", node.value)}
    assert registered == set(PAGES)
    fat = {p: n for p in PAGES if (n := len((ROOT / p).read_text().splitlines())) > MAX_PAGE_LINES}
    assert fat == {}


# ------------------------------------------------------------------------------ search lab


def lab(query: str, mode_b: str | None = None):
    at = start("pages/search_lab.py")
    if mode_b:
        at.selectbox(key="lab_mode_b").set_value(mode_b)
    at.text_input(key="lab_query").input(query)
    at.run()
    clean(at)
    return at


def grade_controls(at, side: str) -> list:
    """The 0-3 grade controls of one side, in rank order (key ``lab_g_<side>_<exchange>``)."""
    return [c for c in at.segmented_control if c.key and c.key.startswith(f"lab_g_{side}_")]


def exchange_of(control) -> str:
    return control.key.split("_")[3]


def metrics_table(at):
    """``{"MRR": [A, B], ...}`` from the lab's metric cards (side A's five come first)."""
    cards = [m for m in at.metric if m.label in ("MRR", "P@1", "nDCG@10", "mean grade@10", "judged@10")]
    out: dict[str, list[float]] = {}
    for m in cards:
        out.setdefault(m.label, []).append(float(m.value))
    return out


def test_grading_a_result_stores_it_and_moves_the_metric(app_env):
    from palace_lab.experiments.ab import lab_query_id
    from palace_lab.store import Palace

    at = lab("pool timeout connection error")
    before = metrics_table(at)
    assert before["MRR"] == [0.0, 0.0] and before["judged@10"] == [0.0, 0.0]
    first = grade_controls(at, "a")[0]
    exchange_id = exchange_of(first)
    first.set_value(3).run()
    clean(at)
    after = metrics_table(at)
    assert after["MRR"][0] == 1.0 and after["P@1"][0] == 1.0
    with Palace.open(app_env) as palace:
        qid = lab_query_id("pool timeout connection error")
        assert palace.qrels(judge="human") == {qid: {exchange_id: 3}}
        assert [q["query_id"] for q in palace.queries("lab")] == [qid]
    # pooled: the same exchange on side B shows the grade too
    for control in grade_controls(at, "b"):
        assert control.value == (3 if exchange_of(control) == exchange_id else None)
    # deselecting the grade clears it
    [c for c in grade_controls(at, "a") if exchange_of(c) == exchange_id][0].set_value(None).run()
    clean(at)
    assert metrics_table(at)["MRR"][0] == 0.0
    with Palace.open(app_env) as palace:
        assert palace.qrels(judge="human") == {}


def test_switching_modes_changes_the_results(app_env):
    def ids(at):
        return [exchange_of(c) for c in grade_controls(at, "b")]

    at = lab("connection pool timeout", mode_b="bm25:verbatim")
    verbatim = ids(at)
    at.selectbox(key="lab_mode_b").set_value("hnsw:core").run()
    clean(at)
    assert ids(at) and ids(at) != verbatim
    assert ids(at) == ids(lab("connection pool timeout", mode_b="hnsw:core"))


def test_a_bad_mode_string_is_one_clear_error(app_env):
    at = start("pages/search_lab.py")
    at.selectbox(key="lab_mode_b").set_value("type a mode string…").run()
    at.text_input(key="lab_custom_b").input("rrf(bm25:verbatim,hnsw:nowhere)").run()
    at.text_input(key="lab_query").input("pool").run()
    assert not at.exception
    assert len(at.error) == 1 and "unknown layer 'nowhere'" in at.error[0].value
    assert "valid layers" in at.error[0].value
    at.text_input(key="lab_custom_b").input("rrf(bm25:verbatim,hnsw:core;k=5)").run()
    clean(at)
    assert any("`rrf(bm25:verbatim,hnsw:core;k=5)`" in s.value for s in at.markdown)


def test_previous_lab_queries_are_clickable(app_env):
    at = lab("first query about pools")
    at.text_input(key="lab_query").input("second query about rounding").run()
    history = [b for b in at.button if b.key and b.key.startswith("lab_hist_")]
    assert len(history) == 2
    [b for b in history if "first query" in b.label][0].click().run()
    clean(at)
    assert at.text_input(key="lab_query").value == "first query about pools"


def test_conversation_text_is_shown_as_text_never_as_markdown(tmp_path, monkeypatch):
    import lab_palaces

    evil = "please fix <img src=x onerror=alert(1)> and [click](http://evil.example) **now**"
    lab_palaces.build(tmp_path / "p.db", extra=[
        {"conversation_id": "c-evil", "role": "user", "content": evil, "timestamp": "2025-07-01T10:00:00Z"},
        {"conversation_id": "c-evil", "role": "assistant", "content": "done <script>x()</script>"}]).close()
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "p.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    at = lab("onerror alert click evil")
    first = exchange_of(grade_controls(at, "a")[0])
    at.session_state["lab_read"] = first  # open it in the reader
    at.run()
    clean(at)
    texts = [t.value for t in at.text]
    assert any("<img src=x onerror=alert(1)>" in t for t in texts)
    assert "done <script>x()</script>" in texts  # the assistant's message, verbatim
    rendered = [m.value for m in (*at.markdown, *at.caption, *at.subheader)]
    assert not any("onerror" in m or "evil.example" in m or "<script>" in m for m in rendered)


# ------------------------------------------------------------------------------ other pages


def test_evaluation_imports_generates_and_exports(app_env):
    at = start("pages/evaluation.py")
    at.session_state["eval_tab"] = "Query sets"
    at.run()
    at.button(key="eval_import").click().run()
    clean(at)
    assert "stored as set **sample**" in at.success[0].value
    at.button(key="eval_ki_go").click().run()
    clean(at)
    assert any("known_item" in s.value for s in at.success)
    assert any("Bias" in w.value for w in at.warning)
    at.session_state["eval_tab"] = "All modes"
    at.run()
    clean(at)
    modes = at.dataframe[0].value["mode"].tolist()
    assert "bm25:verbatim" in modes and "hybrid-rrf" in modes
    assert {m.label for m in at.metric} >= {"Best verbatim MRR", "Retrieval kept"}
    downloads = at.get("download_button")
    assert len(downloads) == 3


def test_evaluation_significance_names_its_correction(app_env):
    at = start("pages/evaluation.py")
    at.radio(key="eval_correction").set_value("holm")
    at.session_state["eval_tab"] = "Significance"
    at.run()
    clean(at)
    assert any("**holm**-corrected" in c.value for c in at.caption)


def test_tuning_makes_a_second_card_version_and_compares_it(app_env):
    from palace_lab.distill import get_distiller

    base = get_distiller("rules").version
    at = start("pages/tuning.py")
    assert any("base version itself" in i.value for i in at.info)  # default knobs: nothing to do
    at.number_input(key="tune_knob_context_chars").set_value(30)
    at.slider(key="tune_n").set_value(12)
    at.run()
    at.button(key="tune_go").click().run()
    clean(at)
    assert "12 cards made" in at.success[0].value
    labels = {m.label for m in at.metric}
    assert {"Mean core tokens, base", "Mean core tokens, trial"} <= labels
    trial = get_distiller("rules", context_chars=30).version
    versions = set(at.dataframe[-1].value["version"]) if "version" in at.dataframe[-1].value else set()
    assert versions in (set(), {base, trial})
    # the trial is partial, so it does not become the default version (a fresh session: AppTest
    # drops the entry point's sidebar after switch_page)
    fresh = start()
    clean(fresh)
    assert set(fresh.selectbox(key="distiller").options) == {base, trial}
    assert fresh.selectbox(key="distiller").value == base


def test_fusion_sliders_move_the_live_metrics(app_env):
    at = start("pages/tuning.py")
    at.session_state["tune_tab"] = "Fusion knobs"
    at.run()
    clean(at)
    before = at.dataframe[0].value
    at.slider(key="tune_w").set_value(1.0).run()
    after = at.dataframe[0].value
    assert before.index[3] != after.index[3]  # the wsum row's mode string follows the slider
    assert after.loc["bm25:verbatim"].tolist() == before.loc["bm25:verbatim"].tolist()


def test_load_page_loads_the_sample_with_its_queries(tmp_path, monkeypatch, built):
    _, source = built
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "new.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    monkeypatch.setenv("PALACE_LAB_SAMPLE_DIR", str(source))
    at = start("pages/load.py")
    at.button(key="load_sample").click().run()
    clean(at)
    assert any("query set **sample**" in c.value for c in at.caption)
    assert not at.warning  # no file of the sample folder was refused


def test_grid_result_is_compared_with_baselines_and_applies_as_search_default(app_env):
    from palace_lab.experiments import prefs as palace_prefs
    from palace_lab.search import DEFAULT_MODE

    at = start("pages/tuning.py")
    at.session_state["tune_tab"] = "Grid search"
    at.run()
    clean(at)
    table = at.dataframe[0].value
    assert list(table["baseline"].str.split(":").str[0]) == ["best verbatim-only", "project default"]
    assert table["verdict"].str.startswith("tuned is").all()
    at.button(key="tune_apply").click().run()
    clean(at)
    applied = palace_prefs.search_mode(app_env)
    assert applied.startswith("wrrf(") and applied != DEFAULT_MODE
    assert any(s.value.startswith("Applied:") for s in at.success)
    lab = start("pages/search_lab.py")
    clean(lab)
    assert lab.selectbox(key="lab_mode_b").value == applied  # the Search lab uses it
    assert any("search default" in i.value for i in lab.info)
    lab.button(key="Search lab_reset_default").click().run()
    assert palace_prefs.search_mode(app_env) == DEFAULT_MODE


def test_trial_card_version_can_become_the_palace_default(app_env):
    from palace_lab.experiments import prefs as palace_prefs
    from palace_lab.distill import get_distiller

    at = start("pages/tuning.py")
    at.number_input(key="tune_knob_context_chars").set_value(30)
    at.slider(key="tune_n").set_value(8)
    at.run()
    at.button(key="tune_go").click().run()
    at.button(key="tune_make_default").click().run()
    clean(at)
    trial = get_distiller("rules", context_chars=30).version
    assert palace_prefs.load(app_env)["distiller_version"] == trial
    fresh = start()
    assert fresh.selectbox(key="distiller").value == trial


def test_search_lab_builds_a_missing_vector_layer_in_the_background(app_env, monkeypatch):
    """With no inline embedding allowed, the default mode's hnsw:verbatim is missing: the lab
    answers at once with what exists (saying so while the build runs, which the fake embedder
    makes brief: tests/test_search_background.py holds it open), builds the layer in the
    background, and the next runs search the whole mode."""
    import time

    from palace_lab.search import DEFAULT_MODE
    from palace_lab.store import Palace

    monkeypatch.setenv("PALACE_LAB_INLINE_EMBED", "0")
    with Palace.open(app_env) as p:  # vectors another test stored would make it instant
        p.conn.execute("DELETE FROM embeddings")
        p.conn.commit()
    at = lab("retry backoff", mode_b=DEFAULT_MODE)
    notes = ""
    for _ in range(60):  # the build runs in a child process
        notes = " ".join(c.value for c in at.caption).replace("\\", "").lower()
        if "built in the background: hnsw:verbatim" in notes:
            break
        time.sleep(0.5)
        at.run()
    clean(at)
    assert "built in the background: hnsw:verbatim" in notes
    assert "not built yet" not in notes


def held_background_build(app_env, monkeypatch, *, inline: str = "allow"):
    """No vectors stored, none embedded inline, and a background build (a thread of this
    process) that waits until the returned event is set. ``inline="fail"``: embedding in the
    page's own thread fails the test."""
    import threading

    from palace_lab.index.embed import FakeEmbedder
    from palace_lab.store import Palace

    monkeypatch.setenv("PALACE_LAB_INLINE_EMBED", "0")
    monkeypatch.setenv("PALACE_LAB_BACKGROUND", "thread")
    with Palace.open(app_env) as p:
        p.conn.execute("DELETE FROM embeddings")
        p.conn.commit()
    go, real = threading.Event(), FakeEmbedder.embed_batch

    def held(self, texts):
        if threading.current_thread() is not threading.main_thread():
            go.wait(30)
        elif inline == "fail":
            pytest.fail("embedded inline")
        return real(self, texts)

    monkeypatch.setattr(FakeEmbedder, "embed_batch", held)
    return go


def test_evaluation_measures_ready_modes_and_lists_those_waiting_for_a_layer(app_env, monkeypatch):
    """With no inline embedding, the vector modes wait for the background build: the table
    holds only the modes searchable now (never one that ran without its layer), the others are
    named; once the build ends they join the table."""
    import time

    go = held_background_build(app_env, monkeypatch)
    at = start("pages/evaluation.py")
    at.session_state["eval_tab"] = "Query sets"
    at.run()
    at.button(key="eval_import").click().run()
    at.session_state["eval_modes"] = ["bm25:verbatim", "hnsw:verbatim"]
    at.session_state["eval_tab"] = "All modes"
    at.run()
    clean(at)
    waiting = " ".join(i.value for i in at.info)
    table = at.dataframe[0].value["mode"].tolist()
    assert "hnsw:verbatim" in waiting and table == ["bm25:verbatim"]
    go.set()
    for _ in range(60):  # the build runs in its own thread (brief with the fake embedder)
        time.sleep(0.5)
        at.run()
        if at.dataframe and "hnsw:verbatim" in at.dataframe[0].value["mode"].tolist():
            break
    clean(at)
    assert at.dataframe[0].value["mode"].tolist() == ["bm25:verbatim", "hnsw:verbatim"]


def test_rooms_leave_a_large_core_layer_to_the_background_build(app_env, monkeypatch):
    """The embedding space never embeds a layer too large to embed inline (at 50,000
    exchanges, minutes): it starts the background build, says so, and shows the projection
    once the layer is built."""
    import time

    go = held_background_build(app_env, monkeypatch, inline="fail")
    at = start("pages/rooms.py")
    at.session_state["rooms_tab"] = "Embedding space"
    at.run()
    clean(at)
    assert "embedded in the background" in " ".join(i.value for i in at.info)
    assert not at.get("plotly_chart")
    go.set()
    for _ in range(60):
        time.sleep(0.5)
        at.run()
        if at.get("plotly_chart"):
            break
    clean(at)
    assert at.get("plotly_chart") and not at.info


def test_rooms_are_counted_once_kept_on_disk_and_their_table_paged(app_env, monkeypatch):
    """A fresh server reads the room sizes back instead of every card (6 s at 50,000 cards),
    and the table shows TABLE_ROWS rooms at a time, the largest first."""
    import streamlit as st
    import ui.rooms

    import palace_lab.rooms

    monkeypatch.setattr(ui.rooms, "TABLE_ROWS", 3)
    at = start("pages/rooms.py")
    clean(at)
    first = list(at.dataframe[0].value["room_key"])
    assert len(first) == 3 and at.number_input(key="rooms_table_page")
    at.number_input(key="rooms_table_page").set_value(2).run()
    assert list(at.dataframe[0].value["room_key"]) != first
    st.cache_data.clear()
    st.cache_resource.clear()
    monkeypatch.setattr(palace_lab.rooms, "room_stats", lambda *a, **k: pytest.fail("recounted"))
    again = start("pages/rooms.py")
    clean(again)
    assert list(again.dataframe[0].value["room_key"]) == first


def test_slow_imports_are_warmed_once_per_process_in_the_background(app_env):
    import sys

    from ui.state import warm_imports

    clean(start())
    thread = warm_imports()
    assert thread is warm_imports() and thread.name == "palace-lab-warm-imports"
    thread.join(60)
    assert "scipy.stats" in sys.modules


def test_an_ab_search_reads_the_cards_of_its_hits_not_every_card(app_env, monkeypatch):
    """At 50,000 cards the room filter and the result cards read every card (5.7 s); the
    filter lists rooms read back from disk and the results read their own hits' cards."""
    import streamlit as st

    from palace_lab.store import Palace

    lab("rounding of amounts")  # an earlier server built the indexes and counted the rooms
    st.cache_data.clear()
    st.cache_resource.clear()
    monkeypatch.setattr(Palace, "cards", lambda *a, **k: pytest.fail("read every card"))
    monkeypatch.setattr(Palace, "card_map", lambda *a, **k: pytest.fail("read every card"))
    at = lab("pool timeout connection error")
    assert grade_controls(at, "a") and at.selectbox(key="lab_f_room").options[1:]


# ------------------------------------------------------------------------------ errors


def _guarded_room_map():
    """A page step that raises what a bad value raises in the core (an unknown chart size)."""
    from palace_lab.charts.rooms import room_map
    from ui.state import guard

    with guard():
        room_map([], size="bytes")
    with guard():
        int("not a number")  # a library's ValueError: bad input, not a bug of the page


def test_an_error_a_person_can_cause_is_a_message_not_a_traceback():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_guarded_room_map, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error][0].startswith("unknown size 'bytes'; valid sizes")
    assert "invalid literal for int()" in at.error[1].value
