"""The Evaluation page's panels: query sets, the paper table for chosen modes, the
significance matrix, a sweep of mode strings, and exports."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from palace_lab.experiments import query_sets as experiments
from palace_lab.charts.evaluation import mode_bars, significance_heatmap, type_heatmap
from palace_lab.errors import SearchError
from palace_lab.evaluate.known_item import BIAS, known_item_queries, save_known_items
from palace_lab.evaluate.sweep import sweep
from palace_lab.paper import REFERENCE_LINES as PAPER_LINES
from palace_lab.search.modes import list_modes, parse_mode
from ui.exchange import md_escape
from ui.search import mode_runs
from ui.state import SAMPLE_DATA, distiller_version, palace, query_set
from ui.story import few_queries, headline

SWEEP_DEFAULT = "\n".join([
    "rrf(bm25:verbatim,hnsw:core;k=10)", "rrf(bm25:verbatim,hnsw:core;k=30)",
    "rrf(bm25:verbatim,hnsw:core;k=60)", "rrf(bm25:verbatim,hnsw:core;k=100)",
    "combmnz(bm25:verbatim,hnsw:core;norm=p95)", "combmnz(bm25:verbatim,hnsw:core;norm=minmax)",
    "wsum(bm25:verbatim=0.3,hnsw:core=0.7)", "wsum(bm25:verbatim=0.5,hnsw:core=0.5)",
    "wsum(bm25:verbatim=0.7,hnsw:core=0.3)", "rrf(bm25:verbatim,bm25:core,hnsw:core;k=60)"])


def query_sets_panel() -> None:
    p = palace()
    done = st.session_state.pop("eval_done", None)  # said after the rerun that refreshed the lists
    if done:
        st.success(done)
    rows = experiments.set_rows(p)
    if rows:
        st.dataframe(pd.DataFrame(rows).fillna(0), width="stretch", hide_index=True)
    else:
        st.info("No query set yet: import the sample's, generate known-item queries, or grade "
                "results in the **Search lab** (your own **lab** set).")
    a, b = st.columns(2)
    with a.container(border=True):
        st.markdown("**The sample's queries** — written by hand with graded judgments (qrels).")
        files = SAMPLE_DATA / "queries.jsonl", SAMPLE_DATA / "qrels.txt"
        missing = not all(f.exists() for f in files)
        if st.button("Import sample queries + qrels", key="eval_import", disabled=missing):
            counts = experiments.import_query_files(p, *files)
            refreshed(f"{counts['queries']} queries and {counts['judgments']} judgments stored as set "
                      f"**sample** ({counts['dangling']} judgments name exchanges not in this palace).")
    with b.container(border=True):
        st.markdown("**Known-item queries: a probe**, generated from the palace's own exchanges. "
                    "Never used for the Overview's figures or a search default.")
        st.warning(f"Bias: {BIAS}", icon=":material/warning:")
        n = st.number_input("How many", 5, 500, 50, key="eval_ki_n")
        seed = st.number_input("Seed", 0, 10_000, 0, key="eval_ki_seed")
        if st.button("Generate known-item queries", key="eval_ki_go"):
            items = known_item_queries(p.exchanges(), n=int(n), seed=int(seed))
            save_known_items(p, items)
            short = ", ".join(f"{n} {t}" for t, n in items.meta["shortfall"].items())
            refreshed(f"{items.meta['n_made']} queries stored as set **known_item** (a probe)"
                      + (f"; {short} fewer than asked (this palace cannot supply them)" if short else ""))
    st.caption("Your A/B queries form the **lab** set (judge *human*). Choose the set to evaluate "
               "in the sidebar; human grades take precedence over imported and LLM grades.")


def refreshed(message: str) -> None:
    """Rerun so the sidebar's query sets and the table above show what was just stored; the
    message is shown after the rerun."""
    st.session_state["eval_done"] = message
    st.rerun()


def mode_choice() -> list[str]:
    """The modes to evaluate: presets and pure modes, plus any typed mode string."""
    names = [m["name"] for m in list_modes()]
    has_cards = distiller_version() is not None
    default = [m for m in experiments.DEFAULT_MODES if has_cards or m.endswith(":verbatim")]
    chosen = st.multiselect("Modes (type any mode string to add it)", names, default=default,
                            key="eval_modes", accept_new_options=True)
    good = []
    for mode in chosen:
        try:
            parse_mode(mode)
            good.append(mode)
        except SearchError as exc:
            st.error(md_escape(exc), icon=":material/error:")
    return good


def judged() -> tuple[list[dict], dict] | None:
    qset = query_set()
    queries, qrels = experiments.judged_set(palace(), qset)
    if not queries:
        st.info(f"The query set **{md_escape(qset or 'none')}** has no judged query yet. Import or "
                "generate a set under **Query sets**, or grade results in the Search lab.")
        return None
    if experiments.is_probe(qset):
        st.warning(f"**{md_escape(experiments.set_label(qset))}**: figures for lexical regressions, "
                   f"not the paper's result. {BIAS}", icon=":material/science:")
    return queries, qrels


def table_panel(report, n_queries: int) -> None:
    headline(report.summary, probe=experiments.is_probe(query_set()))
    few_queries({"queries": n_queries})
    table = report.to_dataframe()
    table["significant"] = [_significance(v, d) for v, d in zip(table["significant"], table["d"])]
    st.dataframe(table, width="stretch", hide_index=True)
    if report.comparison:
        st.caption(f"d, p_adj, significant: paired {report.comparison.test}-test of each mode against "
                   f"the best verbatim mode on per-query {report.primary}, "
                   f"**{report.comparison.correction}**-corrected over {len(report.comparison.rows)} "
                   f"comparisons, alpha {report.comparison.alpha}. {n_queries} judged queries.")
    st.plotly_chart(mode_bars(report.rows, report.primary, paper=PAPER_LINES), width="stretch")
    if report.by_type:
        st.subheader("Per query type")
        st.plotly_chart(type_heatmap(report.by_type, report.primary), width="stretch")
        st.dataframe(pd.DataFrame(report.summary["by_type"]), width="stretch", hide_index=True)
    for note in report.notes:
        st.caption(md_escape(note))


def significance_panel(runs, qrels, correction: str, test: str) -> None:
    metric = st.selectbox("Metric", ["mrr", "p@1", "ndcg@10", "mean_grade@10"], key="eval_sig_metric")
    comparison = experiments.significance(runs, qrels, metric=metric, correction=correction, test=test)
    st.caption(f"Every pair of modes, paired {test}-test on per-query {metric}; p-values "
               f"**{correction}**-corrected over all {len(comparison.rows)} pairs; "
               f"* = below {comparison.alpha}. ▲ the row's mode has the higher mean {metric} "
               "than the column's, ▼ the lower.")
    st.plotly_chart(significance_heatmap(comparison.matrix(), alpha=comparison.alpha,
                                         means=comparison.means), width="stretch")
    st.dataframe(comparison.to_dataframe(), width="stretch", hide_index=True)
    return comparison


def exports(report, comparison=None) -> None:
    c = st.columns(3)
    data = report.to_dict()
    markdown = report.to_markdown()
    if comparison is not None:
        data["significance_matrix"] = comparison.to_dict()
        markdown += "\n" + comparison.to_markdown() + "\n" + comparison.matrix_markdown()
    c[0].download_button("CSV", report.to_csv(), "palace_eval.csv", "text/csv", key="eval_csv")
    c[1].download_button("JSON", json.dumps(data, indent=1), "palace_eval.json", "application/json",
                         key="eval_json")
    c[2].download_button("Markdown", markdown, "palace_eval.md", "text/markdown", key="eval_md")


def sweep_panel(queries, qrels) -> None:
    text = st.text_area("Mode strings, one per line", SWEEP_DEFAULT, height=220, key="eval_sweep_modes")
    if not st.toggle("Run the sweep", key="eval_sweep_on"):
        return
    modes = [line.strip() for line in text.splitlines() if line.strip()]
    result = sweep(lambda m: mode_runs([m], queries)[m], modes, qrels)
    st.dataframe(pd.DataFrame(result.rows), width="stretch", hide_index=True)
    for mode, message in result.errors.items():
        st.error(md_escape(f"{mode}: {message}"), icon=":material/error:")
    st.download_button("Sweep as Markdown", result.to_markdown(), "palace_sweep.md", key="eval_sweep_md")


def _significance(value, d) -> str:
    """"yes, better" / "yes, worse" than the baseline (the sign of Cohen's d), "no", or a label."""
    if not isinstance(value, bool):
        return value or ""
    return ("yes, better" if d > 0 else "yes, worse") if value else "no"
