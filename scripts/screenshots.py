"""The screenshots of README.md and docs/app.md, from a fresh palace built as ``./lab app`` builds it, in Chromium.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]

Builds the sample palace in a temporary folder with the CLI (ingest, distill, import-queries,
the Overview's figures), starts ``streamlit run app.py`` on 127.0.0.1 as the tests do, and saves
at 1440×900 (or shoots a lab already running, ``--url``): the Overview, a search narrowed to one
project with a long exchange open in the reader, and a grid-search result applied as the
palace's search default; then the gallery (:data:`GALLERY`), each page whole at 60%.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from app_server import chromium, settle, streamlit_server  # noqa: E402

LONG = 600_000
QUERY = "why did memory keep growing on the display that sat behind another tab"
PROJECT = "tidewatch"  # the sample's longest exchanges (10-12k characters, 30+ messages) are here


def build(db: Path, env: dict) -> None:
    cli = [str(ROOT / ".venv" / "bin" / "palace-lab")]
    sample = ROOT / "sample_data"
    steps = [[*cli, "ingest", str(sample / "claude_code"), str(sample / "codex"), str(sample / "chatgpt")],
             [*cli, "distill"],
             [*cli, "import-queries", str(sample / "queries.jsonl"), "--qrels", str(sample / "qrels.txt")],
             [sys.executable, "-m", "palace_lab.experiments.story"]]
    for step in steps:
        subprocess.run([*step, "--db", str(db)], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)


def shoot(url: str, out: Path) -> None:
    with chromium(1440, 900) as page:
        page.goto(url)
        settle(page, LONG)
        page.get_by_text("Retrieval kept").first.wait_for(timeout=LONG)
        page.screenshot(path=out / "01-overview.png")

        page.goto(f"{url}/search_lab")
        settle(page, LONG)
        page.set_viewport_size({"width": 1440, "height": 2500})  # the filters, hits and the reader
        depth = page.get_by_label("k", exact=True)
        depth.fill("2")
        depth.press("Enter")
        settle(page)
        page.get_by_label("Project").click()
        page.get_by_role("option", name=PROJECT, exact=True).click()
        settle(page)
        query = page.get_by_label("Query", exact=True)
        query.fill(QUERY)
        query.press("Enter")
        page.locator(".st-key-lab_metrics_a").wait_for(timeout=LONG)
        settle(page, LONG)
        page.get_by_role("button", name="Read").nth(2).click()  # B's first hit (k = 2 a side)
        settle(page)
        page.locator(".st-key-lab_reader").wait_for()
        page.get_by_label("Query", exact=True).scroll_into_view_if_needed()
        page.mouse.move(5, 5)  # no tooltip over the hits
        page.wait_for_timeout(500)
        page.screenshot(path=out / "search-filtered-reader.png")
        shrink(out / "search-filtered-reader.png", 0.6)
        page.set_viewport_size({"width": 1440, "height": 900})

        page.goto(f"{url}/tuning")
        settle(page, LONG)
        page.get_by_role("tab", name="Grid search").click()
        settle(page, LONG)
        page.get_by_role("button", name="Apply as search default").click()
        page.get_by_text("Applied: this palace searches with").wait_for(timeout=LONG)
        settle(page, LONG)
        page.get_by_text("Does tuning beat the baselines?").scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        page.screenshot(path=out / "tuning-applied.png")


GALLERY = [("budgets", None, "03-budgets"),
           ("rooms", None, "04-rooms"), ("evaluation", None, "06-evaluation"),
           ("tuning", None, "07-tuning"), ("lifecycle", None, "08-lifecycle"),
           ("rooms", "Embedding space", "rooms-embedding-space"),
           ("tuning", "Grid search", "tuning-grid-search")]
TALLEST = 2600  # px: a page taller than this is cut at the bottom


def gallery(url: str, out: Path) -> None:
    """The gallery's smaller pictures (docs/app.md): each page (or tab) whole, at 60% (the three that need a
    person's clicks come from the browser test's ``test-output/screenshots``). Streamlit scrolls its
    main block, not the document, so Playwright's ``full_page`` would show only the viewport:
    the viewport is grown to the block's height instead."""
    with chromium(1440, 900) as page:
        for path, tab, name in GALLERY:
            page.goto(f"{url}/{path}")
            settle(page, LONG)
            if tab:
                page.get_by_role("tab", name=tab).click()
                settle(page, LONG)
            drawn(page)
            height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]')"
                                   "?.scrollHeight ?? document.body.scrollHeight")
            page.set_viewport_size({"width": 1440, "height": max(900, min(height, TALLEST))})
            settle(page)
            drawn(page)
            page.mouse.move(5, 5)
            page.screenshot(path=out / f"{name}.png")
            shrink(out / f"{name}.png", 0.6)
            page.set_viewport_size({"width": 1440, "height": 900})


def drawn(page) -> None:
    """Until no chart is still a grey placeholder (charts are drawn once in view), then a beat."""
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stSkeleton\"]')",
                           timeout=LONG)
    page.wait_for_timeout(1500)


def shrink(png: Path, scale: float) -> None:
    """A tall page at a modest file size (docs/app.md shows it at page width anyway)."""
    from PIL import Image

    with Image.open(png) as im:
        small = im.resize((int(im.width * scale), int(im.height * scale)), Image.LANCZOS)
    small.convert("RGB").quantize(256).save(png, optimize=True)  # 256 colours: plenty for a UI, a third of the size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--url", help="shoot a lab already running (e.g. a fresh clone's "
                        "`./lab app --headless`: http://127.0.0.1:8501) instead of building one")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.url:
        shoot(args.url.rstrip("/"), args.out)
        gallery(args.url.rstrip("/"), args.out)
        return report(args.out)
    with tempfile.TemporaryDirectory(prefix="palace_shots_") as tmp:
        db = Path(tmp) / "sample.db"
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PALACE_LAB_CACHE_DIR": str(Path(tmp) / "cache")}
        build(db, env)
        server_env = {"PALACE_LAB_DB": str(db), "PALACE_LAB_SAMPLE_DB": str(db),
                      "PALACE_LAB_CACHE_DIR": env["PALACE_LAB_CACHE_DIR"],
                      "PALACE_LAB_PALACES": str(Path(tmp) / "own")}
        with streamlit_server(server_env) as url:
            shoot(url, args.out)
            gallery(url, args.out)
    report(args.out)


def report(out: Path) -> None:
    for png in sorted(out.glob("*.png")):
        print(f"{png}  {png.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
