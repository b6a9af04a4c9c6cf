"""The Overview's "Download the report" button (issue 28), through AppTest: it is there, and
what it downloads is the report of the palace, version and graded set the page shows, with the
figures the page measured (a click never measures them itself)."""

from __future__ import annotations

from app_pages import clean, start
from test_app import app_env, built  # noqa: F401 - the shared palace fixtures


def report_of(app_env) -> str:
    from ui.report import report_maker

    from palace_lab.distill.rules import VERSION

    return report_maker(str(app_env), VERSION, "sample", "fake")().decode()


def test_the_overview_offers_the_report_of_what_it_shows(app_env):
    at = start("pages/overview.py")
    clean(at)
    labels = [e.proto.label for e in at.get("download_button")]
    assert "Download the report" in labels
    made = report_of(app_env)
    assert made.startswith("<!DOCTYPE html>") and "<b>palace.db</b>" in made
    computed = [b for b in at.button if b.key == "ov_compute"]
    if computed:  # the figures are measured on the page, not by the download
        assert 'id="not-computed"' in made
        computed[0].click().run()
        clean(at)
        made = report_of(app_env)
    assert 'id="not-computed"' not in made and 'data-figure="retrieval-kept"' in made
