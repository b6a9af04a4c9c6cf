"""The report's sections as HTML fragments, each figure with its definition and its source.

Every text written here goes through :func:`esc`: the redactor, then HTML escaping, so nothing
in the file is markup that came from a conversation and nothing is a secret, even a text that
reached the facts some other way. Numbers are formatted here and nowhere else.
"""

from __future__ import annotations

import html

from palace_lab import paper
from palace_lab.experiments.query_sets import DEFAULT_MODES, FEW_QUERIES
from palace_lab.redact import redact_text
from palace_lab.report.examples import Example
from palace_lab.report.facts import NOT_COMPUTED, ReportFacts, Retrieval

TOP_PROJECTS = 8
LIST_ITEMS = 12  # keywords, rooms or files shown per example card


def esc(text) -> str:
    """``text`` redacted, then escaped for HTML text and attribute values."""
    return html.escape(redact_text(str(text)), quote=True)


def x(ratio: float | None) -> str:
    return "–" if ratio is None else f"{ratio:.1f}x"


def n(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def f3(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def source(command: str, field: str | None = None) -> str:
    pick = f" → <code>{esc(field)}</code>" if field else ""
    return f'<p class="source">Source: <code>{esc(command)}</code>{pick}</p>'


def headline(f: ReportFacts) -> str:
    """The one "how much smaller" figure, the paper's beside it, the other ratio one click away."""
    b, h = f.budget, f.budget["headline"]
    layer, said = h["denominator"], b["layers"]
    p = paper.BUDGET
    return f"""<section class="hero" id="headline">
<p class="kicker">How much smaller the cards are than the exchanges</p>
<div class="pair">
 <div class="figure"><span class="big" data-figure="headline-ratio">{x(h["ratio"])}</span>
  <span class="label">smaller, this palace</span></div>
 <div class="figure paper"><span class="big">{esc(paper.RATIO_NAME)}</span>
  <span class="label">the paper ({p["verbatim_mean"]} → {p["core_mean"]} tokens an exchange)</span></div>
</div>
<p>What was <em>said</em> in {n(b["exchanges"])} exchanges, the person's and the agent's words,
is <b>{n(said["dialogue"]["total"])} tokens</b>; the distilled cards that search reads are
<b>{n(said[layer]["total"])} tokens</b>.</p>
<details id="other-ratio"><summary>The other ratio: counting tool calls and their output,
<b data-figure="other-ratio">{x(h["other"]["ratio"])}</b></summary>
<p>{esc(h["other"]["definition"])}, ratio of totals: {n(said["verbatim"]["total"])} verbatim
tokens ({esc(b["layer_definitions"]["verbatim"])}). The paper reports no such figure.</p></details>
<p class="definition">Definition: {esc(h["definition"])}, a ratio of totals over the
{n(b["compression"][f"dialogue_over_{layer}"]["pairs"])} exchanges with a card.
<b>{esc(layer)}</b>: {esc(b["layer_definitions"][layer])}. The paper's 11x is
{p["verbatim_mean"]} / {p["core_mean"]} tokens an exchange, {esc(p["source"])}.</p>
{source(f"palace-lab budget --db {f.palace} --json", "headline.ratio")}
</section>"""


def per_1000(f: ReportFacts) -> str:
    """The 1,000-exchange chart, like for like: the paper's exchange text (no tool output)
    beside this palace's words said, each against its distilled layer."""
    b, layer, said = f.budget, f.budget["distilled_layer"], f.budget["headline"]["numerator"]
    p = paper.BUDGET["per_1000"]
    mine = b["per_1000_exchanges"]
    return f"""<section id="per-1000"><h2>Carrying 1,000 exchanges</h2>
<p>The paper: ≈{n(p["verbatim"])} tokens of exchange text against ≈{n(p["core"])} distilled. This
palace, like for like: ≈<span data-figure="per-1000-said">{n(mine[said])}</span> tokens of
{esc(said)} against ≈<span data-figure="per-1000-distilled">{n(mine[layer])}</span> distilled
({esc(b["tokenizer"])}); with tool calls and their output, ≈{n(mine["verbatim"])}.</p>
<div class="chart" id="chart-per_1000"></div>
<p class="definition">Mean tokens an exchange × 1,000, per layer. {esc(said)}:
{esc(b["layer_definitions"][said])}; distilled = {esc(layer)}:
{esc(b["layer_definitions"][layer])}.</p>
{source(f"palace-lab budget --db {f.palace} --json", "per_1000_exchanges")}
<div class="chart" id="chart-sizes"></div>
<p class="definition">Exchanges by size in tokens, binned on a log scale: the whole exchange
(verbatim) against the distilled layer.</p>
</section>"""


def retrieval(f: ReportFacts) -> str:
    r = f.retrieval
    head = '<section id="retrieval"><h2>Retrieval kept</h2>'
    if r.figures is None:
        kind = "not-computed" if r.reason == NOT_COMPUTED else "no-graded"
        return f'{head}<div class="note" id="{kind}">{_no_figures(r, f.palace)}</div></section>'
    s, t = r.figures, r.figures.get("tests") or {}
    iv = s.get("intervals") or {}
    kept, asked = s.get("distilled_over_verbatim"), s.get("queries") or 0
    tiles = "".join(_mode_tile(role, key, s, paper_value) for role, key, paper_value in (
        ("best verbatim-only", "best_verbatim", paper.RETRIEVAL["best_verbatim_value"]),
        ("best distilled-only", "best_distilled", paper.RETRIEVAL["best_distilled_value"]),
        ("the default mode", "default_mode", None)))
    few = (f'<p class="note">Only {asked} graded questions: the intervals are wide; grade more '
           "to narrow them.</p>" if asked < FEW_QUERIES else "")
    return f"""{head}
<div class="pair"><div class="figure"><span class="big" data-figure="retrieval-kept">
{"–" if kept is None else f"{kept:.0%}"}</span><span class="label">of the best verbatim MRR kept
by searching the cards alone{_interval(iv.get("kept"), "{:.0%}")}</span></div>
<div class="figure paper"><span class="big">{paper.RETRIEVAL["distilled_over_verbatim"]:.0%}</span>
<span class="label">the paper ({paper.RETRIEVAL["best_distilled_value"]} /
{paper.RETRIEVAL["best_verbatim_value"]})</span></div></div>
{few}<div class="tiles">{tiles}</div>
<p class="definition">MRR@10 (1 / rank of the first relevant exchange, grade ≥ 2, averaged) over
<b data-figure="graded-questions">{n(asked)}</b> graded questions of set
<b>{esc(r.query_set)}</b>, best of {n(s.get("modes"))} modes per class: <em>verbatim-only</em>
modes search the whole exchange, <em>distilled-only</em> modes only card fields. Intervals:
95% percentile bootstrap over the questions. Against the best verbatim mode: paired
{esc(t.get("test") or "t")}-test on the per-question MRR, p {esc(t.get("correction") or "")}-corrected
over {n(t.get("comparisons"))} comparisons; d is Cohen's d of the paired differences.</p>
{source(f"python -m palace_lab.experiments.story --db {f.palace}")}
<p class="source">The same means: <code>palace-lab eval --db {esc(f.palace)} --queries QUERIES
--qrels QRELS --modes {esc(",".join(DEFAULT_MODES))} --json</code> → <code>summary</code>,
<code>modes</code></p>
</section>"""


def _no_figures(r: Retrieval, palace_name: str) -> str:
    if r.reason == NOT_COMPUTED:
        return (f"Retrieval figures for set <b>{esc(r.query_set)}</b> are not computed yet: "
                f"<code>palace-lab report --db {esc(palace_name)}</code> computes them (it builds "
                "the search indexes first), as does the Overview of <code>palace-lab app</code>.")
    return (f"<b>No retrieval figure:</b> {esc(r.reason)}. Retrieval is measured only on graded "
            "questions (a person's, an LLM grader's or a qrels file's grades); generated "
            "known-item queries reuse the exchange's own words and are not graded questions. "
            "To make a graded set: <code>palace-lab import-queries QUERIES.jsonl --qrels QRELS "
            f"--db {esc(palace_name)}</code>, or grade your own questions in the app "
            "(<code>palace-lab app</code>, <b>Grade your questions</b>).")


def _mode_tile(role: str, key: str, s: dict, paper_value: float | None) -> str:
    mode, value = s.get(key), s.get(f"{key}_value") if key != "default_mode" else s.get("default_value")
    if not mode or value is None:
        return f'<div class="tile"><p class="role">{esc(role)}</p><p>–</p></div>'
    test = (s.get("tests") or {}).get(key)
    iv = s.get("intervals") or {}
    if key == "best_verbatim" or mode == s.get("best_verbatim"):
        versus = "the baseline"
    elif test:
        gap = iv.get("default_vs_verbatim") if key == "default_mode" else None
        versus = (f"{test['diff']:+.3f}{_interval(gap, '{:+.3f}')}, "
                  f"p = {_p(test.get('p_t_adj' if s['tests'].get('test') == 't' else 'p_w_adj'))}"
                  f", d = {_d(test.get('d'))}")
    else:
        versus = "–"
    theirs = f"<p>paper {paper_value}</p>" if paper_value is not None else ""
    return f"""<div class="tile" data-mode="{esc(mode)}" data-role="{esc(key)}">
<p class="role">{esc(role)}</p><p class="mode"><code>{esc(mode)}</code></p>
<p class="value"><span data-figure="mrr">{f3(value)}</span> <small>MRR</small></p>
<p>95% interval{_interval(iv.get(key), "{:.3f}") or " –"}</p>
<p>vs best verbatim: {versus}</p>{theirs}</div>"""


def _interval(iv: dict | None, fmt: str) -> str:
    return f" [{fmt.format(iv['lo'])}, {fmt.format(iv['hi'])}]" if iv else ""


def _p(p: float | None) -> str:
    return "–" if p is None else "< 0.001" if p < 0.001 else f"{p:.3f}"


def _d(d: float | None) -> str:
    return "–" if d is None else f"{d:+.2f}"


def examples(f: ReportFacts) -> str:
    if not f.examples:
        return ""
    cards = "\n".join(_example(e) for e in f.examples)
    layer = f.budget["distilled_layer"]
    return f"""<section id="examples"><h2>Five typical cards</h2>
<p class="definition">Not the best ones: the five cards whose {esc(layer)} size is closest to the
median (one per conversation where possible), beside the opening of their exchange. Every text
passed the redactor.</p>
{cards}
{source(f"palace-lab cards --db {f.palace} --json")}
</section>"""


def _example(e: Example) -> str:
    where = " · ".join(esc(v) for v in (e.project, (e.timestamp or "")[:10]) if v)
    extra = "".join(f"<p><b>{label}</b> {_some(values)}</p>" for label, values in (
        ("keywords", e.keywords), ("rooms", e.rooms), ("files", e.files)) if values)
    return f"""<article class="example">
<div class="said"><p class="role">The exchange opens with · {where}</p>
<blockquote>{esc(e.opening)}</blockquote>
<p class="sizes">{n(e.dialogue_tokens)} tokens said, {n(e.verbatim_tokens)} with tool traffic</p></div>
<div class="card"><p class="role">Its card · {n(e.card_tokens)} tokens</p>
<p class="core">{esc(e.exchange_core)}</p><p><b>context</b> {esc(e.specific_context)}</p>
{extra}</div></article>"""


def _some(values: tuple[str, ...], limit: int = LIST_ITEMS) -> str:
    """The first ``limit`` values, then how many more (a card may touch a hundred files)."""
    more = f" and {len(values) - limit:,} more" if len(values) > limit else ""
    return esc(", ".join(values[:limit])) + more


def rooms(f: ReportFacts) -> str:
    if "rooms" not in f.charts:
        return ""
    return """<section id="rooms"><h2>Rooms</h2>
<div class="chart" id="chart-rooms"></div>
<p class="definition">The largest rooms the cards file exchanges under (file, concept, workflow),
sized by exchanges; an exchange filed in two rooms counts in both.</p>
<p class="source">Source: the lab's Rooms page (<code>palace-lab app</code>), from the cards'
<code>room_assignments</code></p></section>"""
