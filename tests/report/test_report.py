"""The stakeholder report (issue 28) without a browser: its figures are the lab's own (``budget
--json``, ``eval --json``), it holds no secret, it is deterministic but for one timestamp, it
loads nothing from any host, and a palace without graded questions gets a note, not a figure.

Retrieval uses the ``fake`` embedder here (the same in the report and in ``eval``); the browser
test (``test_report_browser.py``) opens the sample's report in Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lab_palaces
from redaction_table import SECRET_ROWS

from palace_lab.cli import main
from palace_lab.evaluate import write_qrels, write_queries
from palace_lab.evaluate.known_item import known_item_queries, save_known_items
from palace_lab.experiments.query_sets import DEFAULT_MODES, judged_set
from palace_lab.store import Palace

GENERATED = re.compile(r'<time id="generated"[^>]*>[^<]*</time>')
MAX_BYTES = 5_000_000


def report_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html,
                      re.S)
    return json.loads(found.group(1))


def report(db: Path, capsys, *extra: str) -> tuple[str, dict]:
    """Run ``palace-lab report --json`` and return the file's text and what it printed."""
    out = db.parent / "story.html"
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--out", str(out), "--embedder", "fake", "--json",
                 *extra]) == 0
    printed = json.loads(capsys.readouterr().out)
    return out.read_text("utf-8"), printed


def cli_json(capsys, *argv: str):
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_report_leads_with_the_budget_headline_and_eval_figures(tmp_path, capsys):
    db = tmp_path / "p.db"
    with lab_palaces.build(db) as palace:
        queries, qrels = judged_set(palace, "sample")
    html, printed = report(db, capsys)
    assert printed["out"] == str(tmp_path / "story.html") and set(printed) == {"out", "bytes", "seconds"}
    assert printed["bytes"] == len(html.encode("utf-8")) < MAX_BYTES
    data = report_data(html)
    budget = cli_json(capsys, "budget", "--db", str(db))
    assert data["headline"] == budget["headline"]
    assert f'data-figure="headline-ratio">{budget["headline"]["ratio"]:.1f}x<' in html
    assert f'{budget["headline"]["other"]["ratio"]:.1f}x' in html and "<details" in html
    assert "11x" in html and "371 → 38" in html

    write_queries(tmp_path / "q.jsonl", queries)
    write_qrels(tmp_path / "qrels.txt", qrels)
    table = cli_json(capsys, "eval", "--db", str(db), "--queries", str(tmp_path / "q.jsonl"),
                     "--qrels", str(tmp_path / "qrels.txt"), "--modes", ",".join(DEFAULT_MODES),
                     "--embedder", "fake")
    figures = data["retrieval"]["figures"]
    for key in ("best_verbatim", "best_verbatim_value", "best_distilled", "best_distilled_value",
                "distilled_over_verbatim"):
        assert figures[key] == table["summary"][key], key
    default = next(r for r in table["modes"] if r["mode"] == figures["default_mode"])
    assert figures["default_value"] == default["mrr"]
    assert figures["queries"] == len(qrels) == 4
    assert figures["intervals"]["best_distilled"]["lo"] <= figures["best_distilled_value"]
    assert figures["tests"]["best_distilled"]["n"] == 4 and figures["tests"]["correction"]
    assert f'data-figure="graded-questions">{len(qrels)}<' in html
    assert f'data-figure="mrr">{figures["best_distilled_value"]:.3f}<' in html


def test_a_palace_without_graded_questions_says_so_and_how_to_make_them(tmp_path, capsys):
    db = tmp_path / "p.db"
    with lab_palaces.build(db, judged=False) as palace:
        save_known_items(palace, known_item_queries(palace.exchanges(), n=6))  # a probe only
    html, _ = report(db, capsys)
    data = report_data(html)
    assert data["retrieval"]["figures"] is None and data["retrieval"]["reason"] == "no graded query set"
    assert 'id="no-graded"' in html and "palace-lab import-queries" in html
    assert 'data-figure="retrieval-kept"' not in html and 'data-figure="mrr"' not in html
    html, _ = report(db, capsys, "--queries", "known_item")  # named, it is still not graded
    assert "known-item probe" in html and report_data(html)["retrieval"]["figures"] is None


def test_an_unknown_query_set_is_one_clear_error(tmp_path, capsys):
    lab_palaces.build(tmp_path / "p.db").close()
    code = main(["report", "--db", str(tmp_path / "p.db"), "--out", str(tmp_path / "r.html"),
                 "--queries", "nope"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "no query set 'nope'" in err
    assert not (tmp_path / "r.html").exists()


def test_same_palace_same_bytes_but_for_the_one_timestamp(tmp_path, capsys):
    from datetime import datetime, timezone

    from palace_lab.report import build_report

    with lab_palaces.build(tmp_path / "p.db") as palace:
        one = build_report(palace, embedder="fake", generated=datetime(2026, 1, 2, tzinfo=timezone.utc))
        two = build_report(palace, embedder="fake", generated=datetime(2026, 3, 4, tzinfo=timezone.utc))
        again = build_report(palace, embedder="fake", generated=datetime(2026, 1, 2, tzinfo=timezone.utc))
    assert one == again and one != two
    first, second = one.decode(), two.decode()
    assert len(GENERATED.findall(first)) == 1
    assert GENERATED.sub("", first) == GENERATED.sub("", second)


def test_the_file_loads_nothing_from_any_host(tmp_path, capsys):
    lab_palaces.build(tmp_path / "p.db").close()
    html, _ = report(tmp_path / "p.db", capsys)
    from plotly.offline import get_plotlyjs

    plotly_js = get_plotlyjs()
    assert html.count(plotly_js) == 1  # inlined once
    page = html.replace(plotly_js, "")
    assert not re.search(r"<(script|img|iframe|link|source|video|audio)\b[^>]*\b(src|href)=", page)
    assert "@import" not in page and "url(" not in page
    assert '"displaylogo": false' in page  # no link out of the chart's mode bar


def planted_history(folder: Path) -> Path:
    """Every secret of the redaction table in a request, an answer, a file path, a project name
    and a title (palace JSONL, one conversation a secret)."""
    lines = []
    for i, (_kind, secret, line) in enumerate(SECRET_ROWS):
        said, bare = line.format(s=secret), secret.strip("'\"")
        common = {"conversation_id": f"c{i}", "project": f"svc {said}", "title": f"deploy {said}"}
        lines += [{**common, "role": "user", "content": f"Fix the deploy of service {i}: {said}",
                   "timestamp": f"2026-09-01T10:{i % 60:02d}:00Z"},
                  {**common, "role": "assistant",
                   "content": f"Set {said} in config/{bare[:12]}.env and restarted service {i}."}]
    folder.mkdir(parents=True)
    path = folder / "history.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    return path


def test_no_planted_secret_reaches_the_report(tmp_path, capsys):
    db = str(tmp_path / "p.db")
    assert main(["ingest", str(planted_history(tmp_path / "h")), "--db", db]) == 0
    assert main(["distill", "--db", db]) == 0
    with Palace.open(db) as palace:  # a graded set whose name holds a secret, so it is shown
        first = palace.exchanges()[0].exchange_id
        name = f"ops {SECRET_ROWS[2][2].format(s=SECRET_ROWS[2][1])}"
        palace.put_queries(name, [{"query_id": "s1", "query": "deploy of service 0"}])
        palace.put_judgments(f"qrels:{name}", {"s1": {first: 3}})
    secret_title = f"Story for {SECRET_ROWS[0][1]}"
    html, _ = report(Path(db), capsys, "--title", secret_title)
    assert "[REDACTED:" in html and 'class="example"' in html and 'data-figure="mrr"' in html
    for kind, secret, _ in SECRET_ROWS:
        bare = secret.strip("'\"")
        for piece in {bare, bare[:20], bare[-20:]}:
            assert piece not in html, kind


def test_the_app_button_never_measures_and_says_what_is_missing(tmp_path):
    from palace_lab.report import build_report
    from palace_lab.store import figures as figures_cache

    with lab_palaces.build(tmp_path / "p.db") as palace:
        html = build_report(palace, embedder="fake", compute=False).decode()
        figures = figures_cache.folder(palace)
    assert report_data(html)["retrieval"]["reason"] == "not computed yet"
    assert "not computed yet" in html and "palace-lab report --db p.db" in html
    assert not list(figures.glob("story-*.json"))  # nothing was measured on the way
