"""Issue 27 points 1-3 in Chromium (Playwright, Debian's /usr/bin/chromium, the real model):
the Overview of a palace with only known-item queries and then with graded ones, pooled
grading with the keyboard, and a tuning recommendation with its interval, at 1440x900 and
1024x700. Screenshots go to ``$PALACE_LAB_SHOTS`` (default ``test-output/screenshots``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from app_server import ROOT, browser_missing, chromium, settle, streamlit_server

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("PALACE_LAB_SHOTS") or ROOT / "test-output" / "screenshots")
LONG = 600_000  # ms: the first figures embed the palace
SIZES = ((1440, 900), (1024, 700))


@pytest.fixture
def palace_db(tmp_path) -> Path:
    missing = browser_missing()
    if missing:
        pytest.skip(f"browser test skipped: {missing}")
    sample = ROOT / "sample_data"
    if not (sample / "queries.jsonl").is_file():
        pytest.skip("the bundled sample is not built (sample_data/queries.jsonl)")
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.evaluate.known_item import known_item_queries, save_known_items
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    db = tmp_path / "own.db"
    with Palace.open(db) as p:
        ingest_paths(p, [sample / d for d in ("claude_code", "codex", "chatgpt") if (sample / d).exists()])
        distill_palace(p, get_distiller("rules"))
        save_known_items(p, known_item_queries(p.exchanges(), n=50))
    return db


def shoot(url: str, name: str, wait_for: str, *, before=None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        with chromium(width, height) as page:
            page.goto(url)
            settle(page)
            if before:
                before(page)
            shown = page.get_by_text(wait_for).first
            shown.wait_for(timeout=LONG)
            shown.scroll_into_view_if_needed()
            assert page.locator('[data-testid="stException"]').count() == 0
            page.screenshot(path=SHOTS / f"{name}-{width}x{height}.png")


def test_probe_graded_pooled_and_tuned_in_chromium(palace_db, tmp_path):
    from palace_lab.experiments.query_sets import import_query_files
    from palace_lab.store import Palace

    env = {"PALACE_LAB_DB": str(palace_db), "PALACE_LAB_PALACES": str(tmp_path / "own")}
    with streamlit_server(env) as url:
        shoot(url, "overview-known-item-only", "No graded query set yet")
        with Palace.open(palace_db) as p:
            import_query_files(p, ROOT / "sample_data" / "queries.jsonl", ROOT / "sample_data" / "qrels.txt")

        def compute(page):
            button = page.get_by_role("button", name="Compute retrieval figures (builds the search indexes)")
            # the page renders in steps: wait for the button or the figures, not a first count
            button.or_(page.get_by_text("graded questions")).first.wait_for(timeout=LONG)
            if button.count():
                button.click()
                settle(page, LONG)
        shoot(url, "overview-graded", "graded questions", before=compute)

        def grid(page):
            page.get_by_role("tab", name="Grid search").click()
            settle(page, LONG)
        shoot(f"{url}/tuning", "tuning-recommendation", "95% interval", before=grid)

        with chromium(1440, 900) as page:  # pooled grading with the keyboard
            page.goto(f"{url}/grading")
            settle(page)
            page.get_by_role("textbox", name="Your questions, one per line").fill(
                "why did we move the full-text index to substring matching?\n"
                "where is the retry backoff configured?\nwhat broke the docker build?")
            page.get_by_role("button", name="Add questions").click()
            settle(page, LONG)
            page.get_by_text(re.compile(r"^0 of \d+ pooled hits graded")).first.wait_for(timeout=LONG)
            page.locator("h1").first.click()  # focus out of the text area: keys go to the page
            page.keyboard.press("3")
            settle(page)
            page.keyboard.press("0")
            settle(page)
            page.get_by_text(re.compile(r"^2 of \d+ pooled hits graded")).first.wait_for(timeout=LONG)
            with Palace.open(palace_db) as p:
                grades = sorted(g for docs in p.qrels(judge="human").values() for g in docs.values())
            assert grades == [0, 3]
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=SHOTS / "pooled-grading-1440x900.png")
            depth = page.get_by_role("spinbutton", name="Hits per mode pooled")
            depth.fill("1")
            depth.press("Enter")  # a shallow pool, graded to the end by keyboard
            settle(page, LONG)
            done = page.get_by_text("Every pooled hit is graded")
            for grade in "3030303030303030303030":
                if done.count():
                    break
                page.locator("h1").first.click()
                page.keyboard.press(grade)
                settle(page, LONG)
            done.wait_for(timeout=LONG)
            table = page.get_by_text("Your own table")
            table.scroll_into_view_if_needed()
            page.get_by_text("graded questions").last.wait_for(timeout=LONG)
            page.screenshot(path=SHOTS / "own-table-1440x900.png")
        with chromium(1024, 700) as page:
            page.goto(f"{url}/grading")
            settle(page)
            page.get_by_text("pooled hits graded").first.wait_for(timeout=LONG)
            page.screenshot(path=SHOTS / "pooled-grading-1024x700.png")
