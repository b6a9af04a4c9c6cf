"""The sample's report opened in Debian's Chromium (Playwright) with the network blocked: every
request but the file itself is aborted and recorded. Every chart draws, nothing is logged as an
error, no request leaves, the headline figures are those of ``palace-lab budget --json`` and
``palace-lab eval --json``, and at 390 px the page fits the screen (a screenshot of each width
goes to ``test-output/screenshots/``). A palace without graded questions says so in the page.

Retrieval uses the ``fake`` embedder, the same in the report and in ``eval``.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import lab_palaces
import pytest
from app_server import ROOT, browser_missing, chromium

from palace_lab.cli import main
from palace_lab.experiments.query_sets import DEFAULT_MODES

pytestmark = pytest.mark.browser
SHOTS = ROOT / "test-output" / "screenshots"
SAMPLE = ROOT / "sample_data"


def cli_json(capsys, *argv: str):
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> Path:
    missing = browser_missing()
    if missing:
        pytest.skip(f"browser test skipped: {missing}")
    if not (SAMPLE / "queries.jsonl").is_file():
        pytest.skip(f"the bundled sample is absent from {SAMPLE}")
    db = tmp_path_factory.mktemp("report_sample") / "sample.db"
    folders = [str(SAMPLE / f) for f in ("claude_code", "codex", "chatgpt")]
    assert main(["ingest", *folders, "--db", str(db)]) == 0
    assert main(["distill", "--db", str(db)]) == 0
    assert main(["import-queries", str(SAMPLE / "queries.jsonl"), "--qrels",
                 str(SAMPLE / "qrels.txt"), "--db", str(db)]) == 0
    return db


@contextmanager
def opened(path: Path, width: int):
    """``(page, blocked, errors)``: the file in Chromium, every other request aborted."""
    blocked, errors = [], []

    def only_the_file(route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with chromium(width, 900) as page:
        page.route("**/*", only_the_file)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        yield page, blocked, errors


def charts_drawn(page) -> None:
    """Every chart slot holds a drawn Plotly chart (an SVG with marks, a real height)."""
    slots = page.locator("div.chart")
    page.wait_for_function("() => [...document.querySelectorAll('div.chart')].every("
                           "e => e.querySelector('.main-svg'))", timeout=30_000)
    for i in range(slots.count()):
        box = slots.nth(i).bounding_box()
        assert box and box["height"] > 200, slots.nth(i).get_attribute("id")
        assert slots.nth(i).locator(".main-svg .plot, .main-svg .treemaplayer").count()


def test_the_sample_report_draws_offline_and_tells_the_lab_figures(sample_db, tmp_path, capsys):
    out = tmp_path / "story.html"
    made = cli_json(capsys, "report", "--db", str(sample_db), "--out", str(out),
                    "--embedder", "fake")
    assert made["bytes"] == out.stat().st_size < 5_000_000
    budget = cli_json(capsys, "budget", "--db", str(sample_db))
    table = cli_json(capsys, "eval", "--db", str(sample_db), "--queries",
                     str(SAMPLE / "queries.jsonl"), "--qrels", str(SAMPLE / "qrels.txt"),
                     "--modes", ",".join(DEFAULT_MODES), "--embedder", "fake")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1440, 390):
        with opened(out, width) as (page, blocked, errors):
            charts_drawn(page)
            assert page.locator("div.chart").count() == 3
            assert page.locator("[data-testid='stSkeleton'], .placeholder").count() == 0
            headline = budget["headline"]
            assert page.locator("[data-figure='headline-ratio']").inner_text() == \
                f"{headline['ratio']:.1f}x"
            page.locator("#other-ratio summary").click()
            assert page.locator("[data-figure='other-ratio']").inner_text() == \
                f"{headline['other']['ratio']:.1f}x"
            s = table["summary"]
            mrr = {r: page.locator(f"[data-role='{r}'] [data-figure='mrr']").inner_text()
                   for r in ("best_verbatim", "best_distilled", "default_mode")}
            default = next(r["mrr"] for r in table["modes"] if r["mode"] == "hybrid-wrrf")
            assert mrr == {"best_verbatim": f"{s['best_verbatim_value']:.3f}",
                           "best_distilled": f"{s['best_distilled_value']:.3f}",
                           "default_mode": f"{default:.3f}"}
            assert page.locator("[data-figure='graded-questions']").inner_text() == \
                str(table["modes"][0]["n"])
            assert page.locator("article.example").count() == 5
            if width == 390:  # readable on a phone: nothing wider than the screen
                assert page.evaluate("document.documentElement.scrollWidth") <= 390
            page.screenshot(path=SHOTS / f"report-sample-{width}.png", full_page=True)
            assert not blocked and not errors, (blocked, errors)


def test_a_report_without_graded_questions_says_so_in_the_browser(sample_db, tmp_path, capsys):
    lab_palaces.build(tmp_path / "p.db", judged=False).close()
    out = tmp_path / "story.html"
    cli_json(capsys, "report", "--db", str(tmp_path / "p.db"), "--out", str(out),
             "--embedder", "fake")
    with opened(out, 390) as (page, blocked, errors):
        charts_drawn(page)
        note = page.locator("#no-graded")
        assert note.is_visible() and "palace-lab import-queries" in note.inner_text()
        assert page.locator("[data-figure='retrieval-kept']").count() == 0
        assert not blocked and not errors, (blocked, errors)
