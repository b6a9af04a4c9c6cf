"""The snags a newcomer hit (issue 27, point 4), through AppTest: one "how much smaller" on every
page and the CLI, charts that show every layer and say who wins, the reader's page selector at
both ends, a load report that tells empty files and merged subagents from failures, the palace
kept in the address, conversation text as text, and the first embedding's time left."""

from __future__ import annotations

import json
from pathlib import Path


import lab_palaces
from app_pages import clean, start
from palace_lab.store import Palace
from test_app import app_env, built  # noqa: F401


def charts(at) -> list[dict]:
    """The page's plotly figures as plotly JSON."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_one_headline_on_the_overview_the_budgets_page_and_the_cli(app_env, capsys):  # noqa: F811
    from palace_lab.budget import headline_text, palace_budget
    from palace_lab.cli.main import main

    with Palace.open(app_env) as palace:
        h = palace_budget(palace)[0].headline
    at = start()
    clean(at)
    assert {m.label: m.value for m in at.metric}["How much smaller"] == f"{h['ratio']:.1f}x"
    at.switch_page("pages/budgets.py").run()
    clean(at)
    lead = at.markdown[0].value.replace("\\", "")
    assert lead.startswith(f"**{headline_text(h)}.**") and "with tool calls" in lead
    assert main(["budget", "--db", str(app_env)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == headline_text(h) and out[1].strip().startswith("with tool calls")


def test_the_1000_exchange_chart_is_like_for_like_and_every_layer_shows(app_env):  # noqa: F811
    from palace_lab.budget import palace_budget

    with Palace.open(app_env) as palace:
        summary = palace_budget(palace)[0]
    at = start("pages/budgets.py")
    clean(at)
    per_1000, by_project, _, over_time = charts(at)  # two columns: left's first, then right's
    said = next(t for t in per_1000["data"] if t["name"].startswith("said: dialogue"))
    assert said["y"] == [407_000, summary.per_1000["dialogue"]]  # the paper's verbatim = said
    for fig, axis in ((per_1000, "yaxis"), (by_project, "xaxis"), (over_time, "yaxis")):
        assert fig["layout"][axis]["type"] == "log"  # the distilled layer, 100x smaller, shows
        assert any(t["name"].startswith("distilled") for t in fig["data"])


def test_evaluation_charts_keep_value_labels_clear_and_say_who_wins(app_env):  # noqa: F811
    at = start("pages/evaluation.py")
    clean(at)
    bars = charts(at)[0]
    assert bars["layout"]["shapes"] and all(s["layer"] == "below" for s in bars["layout"]["shapes"])
    assert all(a["xref"] == "paper" and a["x"] >= 1 for a in bars["layout"]["annotations"])
    assert all(t["textposition"] == "inside" for t in bars["data"])  # no line runs through one
    at.session_state["eval_tab"] = "Significance"
    at.run()
    clean(at)
    cells = [c for row in charts(at)[0]["data"][0]["text"] for c in row if c]
    assert cells and all(c[0] in "▲▼=" for c in cells)


def test_consolidation_profile_is_text_not_markdown(tmp_path, monkeypatch):
    from lifecycle_data import build_palace

    build_palace(tmp_path / "p.db", days=21, per_day=3).close()
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "p.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    at = start("pages/lifecycle.py")
    at.session_state["life_tab"] = "Consolidation"
    at.run()
    clean(at)
    profile = [t.value for t in at.text if t.value.startswith("# profile as of")]
    assert profile, [t.value[:40] for t in at.text]
    assert not any("profile as of" in m.value for m in at.markdown)


def long_exchange(tmp_path: Path, monkeypatch) -> None:
    turns = [{"conversation_id": "c-long", "role": "user", "content": "walk me through the saga",
              "timestamp": "2025-07-01T10:00:00Z", "project": "demo"}]
    turns += [{"conversation_id": "c-long", "role": "assistant", "content": f"step {i} of the saga"}
              for i in range(1, 45)]
    lab_palaces.build(tmp_path / "p.db", extra=turns).close()
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "p.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")


def test_the_reader_can_turn_the_page_at_the_bottom_too(tmp_path, monkeypatch):
    long_exchange(tmp_path, monkeypatch)
    with Palace.open(tmp_path / "p.db") as palace:
        eid = next(e.exchange_id for e in palace.exchanges() if e.conversation_id == "c-long")
    at = start("pages/search_lab.py")
    at.session_state["lab_read"] = eid
    at.text_input(key="lab_query").input("saga").run()
    clean(at)
    pagers = [n for n in at.number_input if n.label == "Messages page (of 3)"]
    assert len(pagers) == 2  # above the messages and below them
    pagers[1].set_value(3).run()
    clean(at)
    assert [n.value for n in at.number_input if n.label == "Messages page (of 3)"] == [3, 3]
    assert any("messages 41–45 of 45" in c.value for c in at.caption)


def claude_folder(root: Path) -> Path:
    """A Claude Code project folder: one session with two subagent transcripts, two empty
    session files, and a notes file that is no export."""
    sid = "5f0c2d1e-0000-4000-8000-000000000009"

    def rec(kind, uuid, text, **extra):
        return {"type": kind, "uuid": uuid, "sessionId": sid, "cwd": "/home/ann/src/shop",
                "timestamp": f"2026-09-01T10:{uuid[-2:]}:00Z", "parentUuid": None,
                "message": {"role": "assistant" if kind == "assistant" else "user",
                            "content": text}, **extra}

    project = root / "-home-ann-src-shop"
    (project / sid / "subagents").mkdir(parents=True)
    lines = [rec("user", "a01", "Explore the repo with two subagents"),
             rec("assistant", "a02", [{"type": "text", "text": "done: 3 modules"}])]
    (project / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    for n in (1, 2):
        sub = [rec("user", f"b{n}3", "explore", isSidechain=True),
               rec("assistant", f"b{n}4", [{"type": "text", "text": "found core.py"}],
                   isSidechain=True)]
        (project / sid / "subagents" / f"agent-{n}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in sub))
    for n in (1, 2):
        (project / f"00000000-0000-4000-8000-00000000000{n}.jsonl").write_text("")
    (root / "notes" / "deep").mkdir(parents=True)
    (root / "notes" / "deep" / "todo.md").write_text("# todo\n\njust text\n")
    return root


def test_the_load_report_tells_empty_and_merged_files_from_failures(tmp_path, monkeypatch,
                                                                     built):  # noqa: F811
    folder = claude_folder(tmp_path / "history")
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "own.db"))
    monkeypatch.setenv("PALACE_LAB_SAMPLE_DB", str(tmp_path / "sample.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    at = start("pages/load.py")
    at.radio(key="load_source").set_value("Local folder or file").run()
    at.text_input(key="load_path").input(str(folder)).run()
    at.button(key="load_path_go").click().run()
    clean(at)
    said = " ".join(c.value for c in at.caption)
    assert "2 subagent files merged into their sessions" in said
    assert "2 empty files skipped" in said
    assert [w.value for w in at.warning] == ["1 files were not ingested"]  # the notes only
    table = at.dataframe[-1].value
    from palace_lab.ingest import PARSER_MODULES

    assert table.to_dict("records") == [{"file": "notes/deep/todo.md", "reason":
                                         "is not a known export; formats tried: "
                                         + ", ".join(PARSER_MODULES)}]
    at.button(key="load_path_go").click().run()  # the same folder again
    clean(at)
    assert [s.value for s in at.success] == ["All 1 files unchanged since the last load: "
                                             "nothing new to ingest."]
    assert not [m for m in at.metric if m.label == "Conversations"]


def first_run(db: Path | None = None):
    """The app's first run (the only one whose sidebar AppTest keeps), with ``?db=`` set."""
    from streamlit.testing.v1 import AppTest

    from app_pages import APP

    at = AppTest.from_file(APP, default_timeout=120)
    if db is not None:
        at.query_params["db"] = str(db)  # what a reload of a page showing that palace sends
    return at.run()


def test_the_palace_is_kept_in_the_address_and_a_bad_one_refused(app_env, tmp_path,  # noqa: F811
                                                                 monkeypatch):
    monkeypatch.setenv("PALACE_LAB_PALACES", str(tmp_path / "own"))
    other = tmp_path / "own" / "mine.db"
    other.parent.mkdir()
    lab_palaces.build(other).close()
    at = first_run(other)
    clean(at)
    assert at.session_state["db_path"] == str(other.resolve())
    assert "6 exchanges" in " ".join(c.value for c in at.sidebar.caption)
    at = first_run()
    at.selectbox(key="sb_palace").set_value(str(other.resolve())).run()  # chosen in the sidebar
    clean(at)
    assert at.query_params["db"] in (str(other.resolve()), [str(other.resolve())])
    not_a_palace = tmp_path / "notes.db"
    not_a_palace.write_text("hello")
    at = first_run(not_a_palace)
    assert "cannot be opened" in at.sidebar.warning[0].value
    assert "db_path" not in at.session_state and "db" not in at.query_params


class Recorder:
    """Stands for ``streamlit`` in :mod:`ui.search`, keeping the texts of progress bars and
    captions that a finished run has already removed from the page."""

    def __init__(self, real):
        self.real, self.seen = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def progress(self, value, text=""):
        self.seen.append(text)
        bar = self.real.progress(value, text=text)
        real_update = bar.progress

        def update(value, text=""):
            self.seen.append(text)
            return real_update(value, text=text)

        bar.progress = update
        return bar

    def caption(self, text, **kw):
        self.seen.append(text)
        return self.real.caption(text, **kw)


def test_the_first_embedding_says_how_long_and_what_works_meanwhile(app_env, monkeypatch):  # noqa: F811
    import streamlit
    import ui.search

    recorder = Recorder(streamlit)
    monkeypatch.setattr(ui.search, "st", recorder)
    at = start("pages/evaluation.py")  # every default mode's index, made inline with progress
    clean(at)
    seen = " | ".join(recorder.seen)
    assert "left (" in seen and "texts/s)" in seen, seen[:500]  # from the measured rate
    assert "Meanwhile BM25 modes" in seen
