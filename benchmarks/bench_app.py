"""The app as a person meets it: server start to the Overview rendered, and an A/B query in the
Search lab answered, timed in Chromium (Playwright on /usr/bin/chromium), the real embedder.

Setup (untimed): a palace built from the bundled sample (or, when it is not built, a synthetic
history of ``--exchanges``), distilled by rules, with the sample's graded queries; then one
"first run" of the server that builds the search indexes and the Overview's retrieval figures.

Timed, ``--repeat`` times each, medians printed (min-max beside them):

- ``overview``: ``streamlit run`` started → the Overview's last element (the retrieval figures)
  painted and the script run finished. A fresh server process each time: Streamlit's caches
  start empty; the index files and the figures cache on disk are warm, and the browser has
  visited the app before (same port, so its cache of Streamlit's static files is warm, as a
  person's is). Target < 5 s.
- ``ab_first``: the first A/B query of a fresh server (loads the embedding model).
- ``ab``: an A/B query on a warm server: Enter pressed → both result columns painted and the
  run finished. Target < 1 s.
- ``ab_engine``: the same two searches through the library alone (``SearchEngine.search``),
  what the page adds on top of is rendering.

- ``--pages --db PALACE``: every page's first visit on a real-size palace, which
  ``bench_pages.py`` measures (this flag runs it).

    .venv/bin/python benchmarks/bench_app.py --repeat 5
    .venv/bin/python benchmarks/bench_app.py --pages --db /tmp/p50k.db
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from app_server import browser_ready, chromium, free_port, settle, streamlit_server  # noqa: E402

TARGETS = {"overview": 5.0, "ab": 1.0}
QUERIES = ["reconnect timeout", "rounding of currency amounts", "flaky test in CI",
           "connection pool size", "migration failed on startup", "cache invalidation bug",
           "websocket backoff", "docker build is slow", "parse error in the config",
           "release checklist"]
MODES = ("bm25:verbatim", "hnsw:core")


def build_palace(folder: Path, exchanges: int) -> tuple[Path, Path]:
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget
    from palace_lab.experiments.query_sets import import_query_files
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    source = ROOT / "sample_data"
    if not ((source / "claude_code").is_dir() and (source / "queries.jsonl").is_file()):
        from palace_lab.synth import generate

        source = folder / "synth"
        generate(source, exchanges=exchanges, projects=3, queries=60, seed=7)
    db = folder / "palace.db"
    with Palace.open(db) as palace:
        ingest_paths(palace, [d for d in (source / "claude_code", source / "codex",
                                          source / "chatgpt") if d.exists()])
        distill_palace(palace, get_distiller("rules"), keep=keep_budget)
        import_query_files(palace, source / "queries.jsonl", source / "qrels.txt")
    return db, source


def overview_done(page) -> None:
    page.get_by_text("Best verbatim MRR").wait_for(timeout=600_000)
    settle(page, 600_000)


def ab_query(page, text: str) -> float:
    """Seconds from Enter to both columns painted for ``text`` and the run finished."""
    from palace_lab.experiments.ab import lab_query_id

    box = page.get_by_label("Query", exact=True)
    box.fill(text)
    start = time.perf_counter()
    box.press("Enter")
    page.get_by_text(lab_query_id(text)).wait_for(timeout=600_000)
    page.locator(".st-key-lab_metrics_b").wait_for()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stApp\"]')"
                           "?.getAttribute('data-test-script-state') === 'notRunning'", timeout=600_000)
    return time.perf_counter() - start


def first_run(env: dict) -> None:
    with streamlit_server(env) as url, chromium() as page:
        page.goto(f"{url}/evaluation")  # builds every default mode's index
        settle(page, 1_800_000)
        page.goto(url)
        overview_done(page)


def time_overview(env: dict, page, port: int) -> float:
    start = time.perf_counter()
    with streamlit_server(env, port=port) as url:
        page.goto(url)
        overview_done(page)
        return time.perf_counter() - start


def time_ab(env: dict, page, repeat: int) -> tuple[float, list[float]]:
    with streamlit_server(env) as url:
        page.goto(f"{url}/search_lab")
        settle(page)
        first = ab_query(page, "what did we decide about retries")
        warm = [ab_query(page, QUERIES[i % len(QUERIES)] + f" {i}") for i in range(repeat)]
    return first, warm


def time_engine(db: Path, repeat: int) -> list[float]:
    from palace_lab.search import SearchEngine
    from palace_lab.store import Palace

    palace = Palace.open(db)
    engine = SearchEngine(palace)  # the only version: the rules cards built above
    engine.search("warm up", MODES[1])
    out = []
    for i in range(repeat):
        start = time.perf_counter()
        for mode in MODES:
            engine.search(QUERIES[i % len(QUERIES)], mode, 10)
        out.append(time.perf_counter() - start)
    return out


def summary(values: list[float]) -> dict:
    return {"median_s": round(statistics.median(values), 3), "min_s": round(min(values), 3),
            "max_s": round(max(values), 3), "n": len(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--exchanges", type=int, default=300, help="synthetic size when the sample is absent")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--pages", action="store_true", help="each page's first render on --db")
    parser.add_argument("--db", help="an existing palace (with --pages)")
    parser.add_argument("--page-timeout", type=float, default=90.0)
    args = parser.parse_args(argv)
    if not browser_ready("bench_app"):
        return 2
    if args.pages:
        if not args.db:
            parser.error("--pages needs --db PALACE")
        from bench_pages import main as bench_pages  # the page timings live there

        return bench_pages(["--db", args.db, "--page-timeout", str(args.page_timeout)]
                           + (["--json"] if args.json else []))
    with tempfile.TemporaryDirectory(prefix="bench_app_") as tmp:
        folder = Path(tmp)
        db, source = build_palace(folder, args.exchanges)
        env = {"PALACE_LAB_DB": str(db), "PALACE_LAB_SAMPLE_DIR": str(source),
               "PALACE_LAB_CACHE_DIR": str(folder / "cache")}
        (folder / "cache").mkdir()
        first_run(env)
        port = free_port()  # one origin, so the browser's cache of static files is reused
        with chromium() as page:
            overview = [time_overview(env, page, port) for _ in range(args.repeat)]
            ab_first, ab = time_ab(env, page, args.repeat)
        engine = time_engine(db, args.repeat)
    result = {"corpus": str(source.name), "overview": summary(overview), "ab_first": round(ab_first, 3),
              "ab": summary(ab), "ab_engine": summary(engine), "targets_s": TARGETS}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"corpus: {result['corpus']}, {args.repeat} repeats, medians (min-max)")
    for name in ("overview", "ab", "ab_engine"):
        s = result[name]
        target = f"  target < {TARGETS[name]:g} s" if name in TARGETS else ""
        print(f"  {name:<10} {s['median_s']:7.3f} s  ({s['min_s']:.3f}-{s['max_s']:.3f}){target}")
    print(f"  ab_first   {ab_first:7.3f} s  (first query of a fresh server: loads the model)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
