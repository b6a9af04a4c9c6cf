"""The report's closing sections: what the palace spans, what made the figures, and what the
figures do not say (the caveats), each as an HTML fragment (texts through
:func:`palace_lab.report.sections.esc`)."""

from __future__ import annotations

from palace_lab import paper
from palace_lab.report.facts import ReportFacts
from palace_lab.report.sections import TOP_PROJECTS, esc, n, source

LLM_BACKENDS = ("anthropic", "openai-compat")


def palace_span(f: ReportFacts) -> str:
    c, v = f.contents, f.versions
    projects = list(c["projects"].items())
    shown = ", ".join(f"{esc(name)} ({n(count)})" for name, count in projects[:TOP_PROJECTS])
    more = f" and {n(len(projects) - TOP_PROJECTS)} more" if len(projects) > TOP_PROJECTS else ""
    sources = ", ".join(f"{esc(fmt)} ({n(count)} conversations)"
                        for fmt, count in c["sources"].items())
    rows = [("Span", f"{esc(_day(c['first']))} to {esc(_day(c['last']))}"),
            ("Exchanges", f"{n(c['exchanges'])} in {n(c['conversations'])} conversations"),
            ("Projects", f"{n(len(projects))}: {shown}{more}" if projects else "none named"),
            ("Sources", sources or "–"),
            ("Distiller", f"<code>{esc(v['distiller'] or '–')}</code> ({esc(v['backend'] or '–')}"
                          f" backend), {n(c['cards'])} cards"),
            ("Tokenizer", f"tiktoken <code>{esc(v['tokenizer'])}</code>"),
            ("Embedder", f"<code>{esc(v['embedder'])}</code>: {esc(v['embedder_model'])}")]
    body = "".join(f"<tr><th>{k}</th><td>{val}</td></tr>" for k, val in rows)
    return f"""<section id="palace"><h2>The palace</h2><table class="facts">{body}</table>
{source(f"palace-lab exchanges --db {f.palace} --json")}</section>"""


def _day(timestamp: str | None) -> str:
    return timestamp[:10] if timestamp else "unknown"


def caveats(f: ReportFacts) -> list[str]:
    """What the figures do not measure, or measure with a limit, for this palace (plain text)."""
    b, v, r = f.budget, f.versions, f.retrieval
    out = []
    if v["backend"] not in LLM_BACKENDS:
        out.append(f"The cards were written by the offline {v['backend'] or 'rules'} distiller "
                   f"({v['distiller'] or 'none yet'}), not by an LLM as in the paper. LLM cards "
                   "need an API key (palace-lab distill --distiller anthropic) and are not "
                   "measured here.")
    if v["fallbacks"]:
        out.append(f"{n(v['fallbacks'])} cards are fallbacks (the LLM's answer was unusable).")
    pairs = b["compression"][f"dialogue_over_{b['distilled_layer']}"]["pairs"]
    if pairs < b["exchanges"]:
        out.append(f"Only {n(pairs)} of {n(b['exchanges'])} exchanges have a card of this "
                   "version; the ratios cover those.")
    checks = b.get("specific_context") or {}
    if checks.get("cards"):
        out.append(f"specific_context is an exact substring of its exchange in "
                   f"{n(checks['substring'])} of {n(checks['cards'])} cards; whether a card is "
                   "faithful beyond that is not measured.")
    out.append(f"Token counts use tiktoken {v['tokenizer']}; the paper's figures "
               f"({paper.BUDGET['exchanges']:,} exchanges of one person's history) come from its "
               "own corpus and tokenizer, so compare the ratios, not the raw counts.")
    if r.figures is None:
        out.append("Retrieval is not measured here: " + (r.reason or "no graded set") + ".")
    else:
        out.append(f"Retrieval rests on {r.figures.get('queries')} graded questions of set "
                   f"{r.query_set}; generated known-item queries are not counted. The best mode "
                   "of each class is chosen on the same questions it is scored on.")
    out.append("Not measured: how well an agent answers or works with the cards in its context, "
               "search latency, and the cost of writing cards with an LLM.")
    return out


def caveats_section(f: ReportFacts) -> str:
    items = "".join(f"<li>{esc(c)}</li>" for c in caveats(f))
    return f'<section id="caveats"><h2>Caveats</h2><ul>{items}</ul></section>'
