"""The report as one self-contained HTML document.

Invariants:

- Offline: Plotly's JavaScript is inlined once (``plotly.offline.get_plotlyjs()``, the bundle
  the installed plotly ships), fonts are the reader's system fonts, the charts' mode bar has no
  link out; the document names no other host to load anything from.
- Deterministic: the same facts give the same bytes, except the one ``<time id="generated">``
  element (charts get fixed element ids, JSON is written with sorted keys where we write it).
- Safe: chart JSON is embedded with ``</`` escaped so a label cannot close the script; every
  text went through the redactor and HTML escaping (:func:`palace_lab.report.sections.esc`).
- Readable at 390 px: one column under 720 px, tiles and figures wrap, charts resize.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from palace_lab.redact import redact_text
from palace_lab.report.about import caveats_section, palace_span
from palace_lab.report.facts import ReportFacts
from palace_lab.report.sections import esc, examples, headline, per_1000, retrieval, rooms

CHART_CONFIG = {"displaylogo": False, "responsive": True,
                "modeBarButtonsToRemove": ["sendDataToCloud", "lasso2d", "select2d"]}
CSS = """
:root{--ink:#1d2733;--muted:#5b6673;--line:#dde3ea;--accent:#2f6f8f;--paper:#c3a66b}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);
background:#fff}
main{max-width:1040px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:1.7rem;line-height:1.2;margin:.2em 0}h2{font-size:1.3rem;margin:0 0 .5em}
section{border-top:1px solid var(--line);padding:24px 0}
header p,.definition,.source,.role,.sizes,footer{color:var(--muted);font-size:.9rem}
code{font:.85em ui-monospace,SFMono-Regular,Menlo,monospace;background:#f3f5f8;padding:0 .25em;
border-radius:3px;overflow-wrap:anywhere}
.kicker{text-transform:uppercase;letter-spacing:.06em;font-size:.8rem;color:var(--muted)}
.pair{display:flex;flex-wrap:wrap;gap:16px;margin:8px 0 16px}
.figure{flex:1 1 220px;border:1px solid var(--line);border-radius:10px;padding:14px 16px}
.figure .big{display:block;font-size:3rem;font-weight:700;line-height:1.1;color:var(--accent)}
.figure.paper .big{color:var(--paper)}
.label{color:var(--muted);font-size:.9rem}
details{background:#f7f9fb;border-radius:8px;padding:8px 12px;margin:12px 0}
summary{cursor:pointer}
.chart{width:100%;min-height:360px}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(230px,1fr));gap:12px}
.tile{border:1px solid var(--line);border-radius:10px;padding:10px 14px}
.tile p{margin:.25em 0}.tile .value{font-size:1.6rem;font-weight:700}
.note{background:#fff8e6;border:1px solid #f0dca8;border-radius:8px;padding:12px 14px}
.example{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin:12px 0;padding:12px;
border:1px solid var(--line);border-radius:10px}
.example p{margin:.3em 0}.card .core{font-weight:600}
blockquote{margin:.3em 0;padding:.2em .8em;border-left:3px solid var(--line);white-space:pre-wrap;
overflow-wrap:anywhere;font-size:.92rem;max-height:16em;overflow:auto}
.card{background:#f3f8fb;border-radius:8px;padding:8px 12px;overflow-wrap:anywhere}
table.facts{border-collapse:collapse;width:100%}
.facts th{text-align:left;vertical-align:top;padding:6px 12px 6px 0;white-space:nowrap;
color:var(--muted);font-weight:500}
.facts td{padding:6px 0;overflow-wrap:anywhere}
ul{padding-left:1.2em}li{margin:.3em 0}
@media (max-width:720px){main{padding:16px 12px 32px}.example{grid-template-columns:1fr}
.figure .big{font-size:2.4rem}h1{font-size:1.4rem}.facts th{white-space:normal}}
"""


def render(facts: ReportFacts, *, generated: datetime | None = None) -> str:
    """The whole document (see the module's invariants)."""
    from plotly.offline import get_plotlyjs

    when = (generated or datetime.now(timezone.utc)).astimezone(timezone.utc)
    body = "\n".join(part for part in (
        headline(facts), per_1000(facts), retrieval(facts), examples(facts), rooms(facts),
        palace_span(facts), caveats_section(facts)) if part)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(facts.title)}</title><style>{CSS}</style></head>
<body><main>
<header><p class="kicker">palace-lab report</p><h1>{esc(facts.title)}</h1>
<p>Palace <b>{esc(facts.palace)}</b> · {facts.budget["exchanges"]:,} exchanges · generated
<time id="generated" datetime="{when:%Y-%m-%dT%H:%M:%SZ}">{when:%Y-%m-%d %H:%M} UTC</time></p>
</header>
{body}
<footer><p>Made by <code>palace-lab report</code>. Every figure above names the command that
prints it; this file needs no network.</p></footer>
</main>
<script type="application/json" id="report-data">{_script_json(data(facts))}</script>
<script>window.PlotlyConfig = {{MathJaxConfig: 'local'}};</script>
<script>{get_plotlyjs()}</script>
<script>{_draw(facts.charts)}</script>
</body></html>
"""


def data(facts: ReportFacts) -> dict:
    """The report's figures as data (what the tests read back): the headline, the budget's
    layers and per-1,000 figures, the retrieval summary of the graded set, or why there is none."""
    b, r = facts.budget, facts.retrieval
    return {"headline": b["headline"], "exchanges": b["exchanges"], "layers": b["layers"],
            "per_1000_exchanges": b["per_1000_exchanges"], "distiller": b["distiller"],
            "retrieval": {"query_set": r.query_set, "figures": r.figures, "reason": r.reason},
            "examples": [e.exchange_id for e in facts.examples]}


def _script_json(value) -> str:
    return json.dumps(_redacted(value), sort_keys=True).replace("</", "<\\/")


def _redacted(value):
    """``value`` with every string passed through the redactor (set names, mode names...)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {_redacted(k): _redacted(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redacted(v) for v in value]
    return value


NARROW_LAYOUT = {"margin": {"l": 44, "r": 8}, "title": {"font": {"size": 14}},
                 "yaxis": {"title": {"font": {"size": 11}}}}


def _draw(charts: dict[str, str]) -> str:
    """Draw every chart into its ``chart-<name>`` element (chart JSON as Plotly wrote it); on a
    narrow screen a chart with axes gets smaller side margins and titles, so the plot keeps
    its width."""
    specs = ",".join(f'"{name}":{spec.replace("</", "<" + chr(92) + "/")}'
                     for name, spec in charts.items())
    return (f"const charts={{{specs}}};const config={json.dumps(CHART_CONFIG)};"
            f"const narrowLayout={json.dumps(NARROW_LAYOUT)};"
            "const narrow=window.matchMedia('(max-width: 720px)').matches;"
            "const merge=(a,b)=>{const out=Object.assign({},a);for(const [k,v] of Object.entries(b))"
            "{out[k]=(v&&typeof v==='object'&&!Array.isArray(v))?merge(a&&a[k]||{},v):v;}return out;};"
            "for(const [name,fig] of Object.entries(charts)){"
            "const el=document.getElementById('chart-'+name);"
            "let layout=Object.assign({},fig.layout,{autosize:true});"
            "if(narrow&&fig.layout.yaxis){layout=merge(layout,narrowLayout);}"
            "if(el){Plotly.newPlot(el,fig.data,layout,config);}}")
