"""Figures that do not mislead (issue 27, points 1-3), through AppTest: known-item queries are a
probe that never makes the Overview's headline or a search default; one's own questions are
graded over pooled hits; tuning says whether a win is real and guides instead of failing."""

from __future__ import annotations

from app_pages import clean, start
from test_app import app_env, built  # noqa: F401 - the shared palace fixtures

from palace_lab.evaluate.known_item import known_item_queries, save_known_items
from palace_lab.store import Palace


def only_known_items(db) -> None:
    """The palace's graded sets removed, a known-item probe generated instead."""
    with Palace.open(db) as p:
        p.conn.execute("DELETE FROM judgments")
        p.conn.execute("DELETE FROM queries")
        p.conn.commit()
        save_known_items(p, known_item_queries(p.exchanges(), n=20))


def add_known_items(db) -> None:
    with Palace.open(db) as p:
        save_known_items(p, known_item_queries(p.exchanges(), n=20))


def texts(at) -> str:
    parts = [*at.info, *at.warning, *at.success, *at.markdown, *at.caption]
    return " ".join(e.value for e in parts).replace("\\", "")


def metric(at, label: str):
    return next(m for m in at.metric if m.label == label)


# ------------------------------------------------------------------------------ point 1


def test_overview_with_only_known_item_queries_shows_no_headline_and_says_why(app_env):
    only_known_items(app_env)
    at = start("pages/overview.py")
    clean(at)
    said = texts(at)
    assert "No graded query set yet" in said and "Grade your questions" in said
    assert "known-item probe (known_item) is not used here" in said
    assert metric(at, "Retrieval kept").value == "–"
    assert not [b for b in at.button if b.key == "ov_compute"]  # nothing to compute on a probe
    assert "Searching the cards alone" not in said and "graded questions" not in said


def test_overview_on_graded_queries_names_their_number_and_interval(app_env):
    add_known_items(app_env)
    at = start("pages/overview.py")
    computed = [b for b in at.button if b.key == "ov_compute"]
    if computed:
        computed[0].click().run()
    at.session_state["query_set"] = "known_item"  # the sidebar's choice is a probe
    at.run()
    clean(at)
    said = texts(at)
    assert "graded questions" in said and "95% interval" in said
    assert "these figures use the graded set **sample**" in said
    kept = metric(at, "Retrieval kept")
    assert kept.value.endswith("%") and "graded queries of set sample" in kept.help


def on_tab(page: str, key: str, label: str, at=None):
    """``page`` (started unless ``at`` is given) with its tab ``label`` open."""
    at = at or start(page)
    at.session_state[key] = label
    at.run()
    return at


def test_generating_known_items_refreshes_the_set_table_and_labels_it_a_probe(app_env):
    at = on_tab("pages/evaluation.py", "eval_tab", "Query sets")
    at.button(key="eval_ki_go").click().run()
    clean(at)
    table = at.dataframe[0].value
    assert "known_item" in table["query_set"].tolist()  # in the table at once, not after a page change
    assert table.set_index("query_set").loc["known_item", "kind"] == "known-item probe"
    assert any("known_item** (a probe)" in s.value for s in at.success)
    at.session_state["query_set"] = "known_item"
    at.session_state["eval_tab"] = "All modes"
    at.run()
    clean(at)
    assert any("(probe)" in m.label for m in at.metric)
    assert any("known-item probe" in w.value.replace("\\", "") for w in at.warning)


# ------------------------------------------------------------------------------ point 3


def grid(at):
    clean(on_tab("pages/tuning.py", "tune_tab", "Grid search", at))
    return at


def test_grid_search_on_one_judged_query_guides_instead_of_failing(app_env):
    with Palace.open(app_env) as p:
        p.conn.execute("DELETE FROM judgments")
        p.conn.execute("DELETE FROM queries")
        p.conn.commit()
        eid = p.exchanges()[0].exchange_id
        p.put_queries("lab", [{"query_id": "lab-1", "query": "pool timeout"}])
        p.put_judgments("human", {"lab-1": {eid: 3}})
    at = grid(start("pages/tuning.py"))
    said = texts(at)
    assert "needs at least 2 judged queries" in said and "this set has 1" in said
    assert "Grade your questions" in said
    table = start("pages/evaluation.py")  # one judged query: "retrieval kept" says how little it rests on
    clean(table)
    assert any("rest on only **1** graded question:" in w.value for w in table.warning)


def test_a_tuning_recommendation_carries_its_interval_and_test(app_env):
    at = grid(start("pages/tuning.py"))
    table = at.dataframe[0].value
    assert {"delta_lo", "delta_hi", "n", "p"} <= set(table.columns)
    advice = [e.value for e in (*at.success, *at.info) if "recommended" in e.value.lower()]
    assert advice and "95% interval" in advice[0] and "paired t-test p =" in advice[0]
    assert advice[0].startswith(("Recommended:", "No change recommended:"))


def test_a_known_item_probe_cannot_become_the_search_default(app_env):
    from palace_lab.experiments import prefs as palace_prefs
    from palace_lab.search import DEFAULT_MODE

    add_known_items(app_env)
    at = start("pages/tuning.py")
    at.session_state["query_set"] = "known_item"
    at = grid(at)
    assert at.button(key="tune_apply").disabled
    said = texts(at)
    assert "No change recommended: these are known-item probe queries" in said
    assert palace_prefs.search_mode(app_env) == DEFAULT_MODE


# ------------------------------------------------------------------------------ point 2


def test_own_questions_are_graded_over_a_hidden_pool_and_make_a_table(app_env):
    from palace_lab.evaluate.pooling import OWN_SET

    at = start("pages/grading.py")
    clean(at)
    at.text_area(key="grade_text").input("pool timeout connection error\nrounding of amounts\n"
                                         "retry backoff settings")
    at.button(key="grade_add").click().run()
    clean(at)
    assert any("3 new question(s)" in s.value for s in at.success)
    at.number_input(key="grade_depth").set_value(1).run()
    for _ in range(40):  # every pooled hit, graded by its key's button
        if any("Every pooled hit is graded" in s.value for s in at.success):
            break
        at.button(key="grade_3" if len(at.success) % 2 else "grade_0").click().run()
        clean(at)
    assert any("Every pooled hit is graded" in s.value for s in at.success)
    with Palace.open(app_env) as p:
        qrels = p.qrels(judge="human")
        assert {q["query_id"] for q in p.queries(OWN_SET)} == set(qrels)
    assert "mrr 95% interval" in at.dataframe[-1].value.columns
    assert any("graded questions" in c.value for c in at.caption)


def test_the_grade_buttons_have_keyboard_shortcuts(app_env):
    import ui.grading

    at = start("pages/grading.py")
    at.text_area(key="grade_text").input("pool timeout")
    at.button(key="grade_add").click().run()
    clean(at)
    shortcuts = {b.key: b.proto.shortcut for b in at.button if b.key and b.key.startswith("grade_")}
    assert shortcuts["grade_0"] == "0" and shortcuts["grade_3"] == "3"
    assert shortcuts["grade_skip"].lower() == "right" and shortcuts["grade_back"].lower() == "left"
    assert ui.grading.POOL_MODES


def test_a_rules_knob_that_changes_no_card_says_why(app_env):
    at = start("pages/tuning.py")
    # The sample's share of dialogue (0.097) lies inside [min_share, max_share]: raising the
    # upper bound moves no card (rules:v5; with v4 the 38 → 60 ceiling was the idle knob).
    at.number_input(key="tune_knob_max_share").set_value(0.6).run()
    clean(at)
    said = texts(at)
    assert "change **none of the 40** sample cards" in said and "does not act" in said
    at.number_input(key="tune_knob_max_share").set_value(0.45).run()
    at.number_input(key="tune_knob_mean_tokens").set_value(80).run()
    clean(at)
    assert any("sample cards" in c.value and "These knobs change" in c.value for c in at.caption)


def test_a_local_model_previews_the_prompt_and_distils_a_sample(app_env):
    from openai_stub import OpenAIStub, first_user_text

    at = start("pages/tuning.py")
    at.radio(key="tune_backend").set_value("openai-compat").run()
    clean(at)
    prompt = "\n".join(t.value for t in at.text)
    assert "<exchange>" in prompt  # the rendered prompt, before any server is asked
    with OpenAIStub() as stub:
        at.text_input(key="tune_base_url").input(stub.base_url).run()
        at.slider(key="tune_n").set_value(4).run()
        at.button(key="tune_preview_go").click().run()
        clean(at)
        assert len(stub.calls()) == 1 and "<exchange>" in first_user_text(stub.calls()[0].body)
        assert any("detail:" in t.value for t in at.text)  # the previewed card
        at.button(key="tune_go").click().run()
        clean(at)
    assert "cards made" in at.success[0].value
