"""The Tuning page's panels: a second card version on a sample, fusion knobs, the CV grid."""

from __future__ import annotations

import inspect
import os

import pandas as pd
import streamlit as st

from palace_lab.experiments import card_versions, fusion_tuning
from palace_lab.charts.evaluation import grid_heatmap, version_bars
from palace_lab.distill import get_distiller
from palace_lab.distill.plan import plan_distill
from palace_lab.distill.prompt import DEFAULT_TEMPLATE, PLACEHOLDERS
from palace_lab.distill.pipeline import distill_palace
from palace_lab.budget import keep_budget
from palace_lab.search.modes import list_modes
from palace_lab.tokens import count_tokens
from ui.defaults import baselines
from ui.exchange import clip, md_escape, show_card
from ui.search import mode_runs
from ui.data import content_key
from ui.state import db_path, distiller_version, engine, palace, palace_at

FEW_HINT = ("Grade a handful of your own questions on **Grade your questions** (pooled hits, "
            "keyboard 0-3), or import a graded set on **Evaluation › Query sets**.")


BACKENDS = {"rules": "offline: knobs below",
            "openai-compat": "a local model (Ollama, llama.cpp, vLLM, LM Studio): no key, no cost",
            "anthropic": "Claude with your prompt (needs a key)"}
LOCAL_URL = "http://127.0.0.1:11434/v1"  # Ollama's OpenAI-compatible endpoint


def trial_distiller():
    """The distiller the person configured: rules knobs, a local model behind an
    OpenAI-compatible server, or Anthropic, the last two with an edited prompt."""
    backend = st.radio("Backend", list(BACKENDS), horizontal=True, key="tune_backend",
                       captions=list(BACKENDS.values()))
    if backend == "rules":
        return get_distiller("rules", **knobs(type(get_distiller("rules"))))
    with st.expander("Placeholders the template may use"):
        st.dataframe(pd.Series(PLACEHOLDERS, name="meaning"), width="stretch")
    template = st.text_area("Per-exchange prompt template", DEFAULT_TEMPLATE, height=320, key="tune_template")
    a, b, c = st.columns(3)
    if backend == "openai-compat":
        url = a.text_input("Server (OpenAI-compatible)", os.environ.get("PALACE_LAB_OPENAI_BASE_URL")
                           or LOCAL_URL, key="tune_base_url", help="as `palace-lab distill "
                           "--distiller openai-compat --base-url`")
        model = b.text_input("Model", os.environ.get("PALACE_LAB_OPENAI_MODEL") or "llama3.2:3b",
                             key="tune_local_model")
        cap = c.number_input("Hard cost cap (USD, 0 for a local server)", 0.0, 100.0, 0.0,
                             key="tune_local_cap")
        return get_distiller("openai-compat", template=template, base_url=url, model=model,
                             max_cost_usd=cap or None, max_concurrency=1, timeout=120.0)
    key = a.text_input("Anthropic API key (this session only, never stored)", type="password", key="tune_key")
    model = b.text_input("Model", "claude-haiku-4-5", key="tune_model")
    cap = c.number_input("Hard cost cap (USD)", 0.0, 100.0, 0.5, key="tune_cap")
    return get_distiller("anthropic", template=template, api_key=key or None, model=model,
                         max_cost_usd=cap)


def prompt_preview(distiller, ids: list[str]) -> None:
    """The prompt as it would be sent for one sample exchange (no key, no server needed), and
    a one-card preview from the chosen model when it can be reached."""
    if distiller.backend == "rules" or not ids:
        return
    p = palace()
    with st.expander("Preview: the prompt for one sample exchange, and its card", expanded=True):
        pick = st.selectbox("Exchange", ids, key="tune_preview_id",
                            format_func=lambda e: f"{e} · {(p.exchange(e).preview if p.exchange(e) else '')[:70]}")
        exchange = p.exchange(pick)
        if exchange is None:
            return
        st.text(clip(distiller.prompt_for(exchange), 6000))  # as text: it holds conversation text
        can = distiller.backend == "openai-compat" or has_anthropic_key()
        if st.button("Distil this one exchange now", key="tune_preview_go", disabled=not can,
                     help=None if can else "needs an Anthropic API key"):
            with st.spinner(f"asking {distiller.version.split(':')[1]}…"):
                distill_palace(p, distiller, exchange_ids=[pick], batch_size=1, keep=keep_budget)
        card = next((c for c in p.cards(distiller.version) if c.exchange_id == pick), None)
        if card is not None:
            show_card(card)


def has_anthropic_key() -> bool:
    return bool(st.session_state.get("tune_key") or os.environ.get("ANTHROPIC_API_KEY"))


# The rules distiller's knobs in words (palace_lab/distill/rules.py, "Budget rule").
KNOB_LABELS = {
    "budget_tokens": ("Max core + context tokens", "ceiling on the readable part of a card (paper: 38)"),
    "context_chars": ("Context length (characters)", "how much of the project/file context a card keeps"),
    "core_chars": ("Core length cap (characters)", "hard cap on the core sentence; 0 = no cap"),
    "request_share": ("Request's share of the core", "how much of the core goes to what was asked "
                                                     "rather than to the outcome"),
    "repeat_weight": ("Weight of repeated words", "below 1 penalises words the context already says"),
    "mean_tokens": ("Mean card budget (tokens)", "target tokens a card on average over the palace "
                                                  "(paper: 38); sets the share of dialogue kept"),
    "min_share": ("Min share of dialogue kept", "floor of the share s for very long exchanges"),
    "max_share": ("Max share of dialogue kept", "ceiling of the share s for short chat turns"),
    "core_share": ("Core + context share of the card", "the rest of the card's budget goes to keywords"),
    "min_core": ("Readable clause floor (tokens)", "tokens the core keeps beside the context, "
                                                   "however small the card's budget"),
}


def knobs(factory) -> dict:
    """An input per keyword argument of the distiller (its defaults make the default version)."""
    params = [p for p in inspect.signature(factory).parameters.values()
              if p.kind is p.KEYWORD_ONLY and isinstance(p.default, (bool, int, float, type(None)))]
    chosen, cols = {}, st.columns(3)
    for i, param in enumerate(params):
        col, key, default = cols[i % 3], f"tune_knob_{param.name}", param.default
        label, text = KNOB_LABELS.get(param.name, (param.name, ""))
        text = f"{text} (`{param.name}`, default {default})"
        if isinstance(default, bool):
            chosen[param.name] = col.checkbox(label, default, key=key, help=text)
        elif isinstance(default, int):
            chosen[param.name] = int(col.number_input(label, 0, 10_000, default, key=key, help=text))
        elif isinstance(default, float):
            chosen[param.name] = col.number_input(label, 0.0, 100.0, default, 0.05, key=key, help=text)
        else:
            value = col.number_input(label, 0, 10_000, 0, key=key, help=text)
            chosen[param.name] = int(value) or None
    return chosen


@st.cache_data(max_entries=16, show_spinner="comparing the sample's cards under both knob settings…")
def _knob_effect(path: str, content: str, knobs_: tuple, ids: tuple):
    from palace_lab.distill.corpus import palace_stats
    from palace_lab.experiments.knob_effects import knob_effect

    p = palace_at(path)
    exchanges = list(p.exchanges_by_id(list(ids)).values())
    return knob_effect(get_distiller("rules", **dict(knobs_)), exchanges, palace_stats(p))


def knob_note(distiller, ids: list[str]) -> None:
    """Whether the rules knobs chosen change any sample card, and why not when they do not."""
    from palace_lab.experiments.knob_effects import changed_knobs

    if distiller.backend != "rules" or not ids or not changed_knobs(distiller):
        return
    chosen = tuple(sorted((n, v) for n, (_, v) in changed_knobs(distiller).items()))
    effect = _knob_effect(str(db_path()), content_key(), chosen, tuple(ids))
    if effect.changed:
        st.caption(f"These knobs change **{effect.changed} of {effect.total}** sample cards "
                   "(core, context or keywords), measured before re-distilling.")
        return
    st.warning(f"These knobs change **none of the {effect.total}** sample cards. "
               + " ".join(effect.reasons), icon=":material/info:")


def sample(qrels: dict) -> list[str]:
    a, b = st.columns(2)
    n = a.slider("Sample size (exchanges)", 4, 200, 40, key="tune_n")
    seed = b.number_input("Seed", 0, 10_000, 0, key="tune_seed")
    return card_versions.choose_sample(palace(), qrels, n=int(n), seed=int(seed))


def redistill(distiller, ids: list[str]) -> None:
    p = palace()
    plan = plan_distill(p, distiller, exchange_ids=ids)
    st.caption(f"Trial version **{md_escape(plan.version)}** · {plan.done} of "
               f"{len(ids)} sample exchanges already have its card"
               + (f" · estimated cost **${plan.cost_usd:.4f}**" if plan.paid else ""))
    ok = not plan.paid or st.checkbox(plan.confirmation(), key="tune_confirm")
    if distiller.backend == "anthropic" and not has_anthropic_key():
        st.info("Enter an Anthropic API key to distill with Claude; it is kept for this session only.")
        ok = False
    if st.button("Re-distill the sample", type="primary", disabled=not plan.pending or not ok, key="tune_go"):
        bar = st.progress(0.0, text="distilling the sample…")
        summary = distill_palace(p, distiller, exchange_ids=ids, batch_size=4,
                                 progress=lambda d, t, _: bar.progress(d / max(t, 1), text=f"{d}/{t}"),
                                 keep=keep_budget)
        bar.empty()
        st.success(f"{summary.made} cards made ({summary.failed} fallbacks), ${summary.cost_usd:.4f}"
                   + (f"; stopped: {summary.stopped}" if summary.stopped else ""))


def compare(trial: str, ids: list[str], queries: list[dict], qrels: dict) -> None:
    base, p, wanted = distiller_version(), palace(), set(ids)
    if not any(c.exchange_id in wanted for c in p.cards(trial)):
        return
    pairs = card_versions.card_pairs(p, base, trial, ids, count_tokens=count_tokens)
    table = pd.DataFrame(pairs)
    c = st.columns(3)
    c[0].metric("Mean core tokens, base", f"{table['base_tokens'].mean():.1f}")
    c[1].metric("Mean core tokens, trial", f"{table['trial_tokens'].mean():.1f}",
                delta=f"{table['trial_tokens'].mean() - table['base_tokens'].mean():+.1f}",
                delta_color="inverse")
    rows, info = card_versions.compare_versions(p, [base, trial], ids, queries, qrels,
                                                engine().indexes.embedder)
    c[2].metric("Judged queries with a relevant exchange in the sample", info["queries"])
    st.dataframe(table, width="stretch", hide_index=True)
    if rows:
        st.caption("Both versions searched on the same sub-corpus (the sample); vector modes by "
                   "exact cosine; qrels restricted to the sample.")
        st.dataframe(pd.DataFrame(rows), width="stretch", hide_index=True)
        st.plotly_chart(version_bars(rows), width="stretch")
    else:
        st.info("No judged query has a relevant exchange in this sample: grade some results or "
                "import a query set to measure retrieval.")


def pure_pair() -> tuple[str, str]:
    names = [m["name"] for m in list_modes() if m["kind"] == "pure"]
    a, b = st.columns(2)
    run_a = a.selectbox("Run A", names, index=names.index("bm25:verbatim"), key="tune_run_a")
    run_b = b.selectbox("Run B", names, index=names.index("hnsw:core"), key="tune_run_b")
    return run_a, run_b


def fusion_panel(run_a: str, run_b: str, queries: list[dict], qrels: dict) -> None:
    runs = mode_runs([run_a, run_b], queries, k=fusion_tuning.DEPTH)
    a, b, c = st.columns(3)
    w = a.slider("Weight of run A (B gets 1 − w)", 0.0, 1.0, 0.5, 0.05, key="tune_w")
    k = b.slider("RRF k", 1, 200, 60, key="tune_k")
    norm = c.selectbox("wsum normaliser", ["minmax", "p95", "zscore"], key="tune_norm")
    rows = fusion_tuning.live_rows(run_a, run_b, runs[run_a], runs[run_b], qrels, weight=w, k=k, norm=norm)
    st.dataframe(pd.DataFrame(rows).set_index("mode").style.format("{:.3f}").highlight_max(color="#d7ecd9"),
                 width="stretch")
    st.caption(f"{len(qrels)} judged queries; pure runs to depth {fusion_tuning.DEPTH}, fused, cut "
               "to 10, exactly as the engine runs these modes; at w = 0.5 weighted RRF ranks as plain rrf. "
               "Apply a weighting as the search default on **Grid search**.")


def grid_panel(run_a: str, run_b: str, queries: list[dict], qrels: dict, *, probe: bool = False) -> None:
    n = len(qrels)
    if n < fusion_tuning.MIN_GRID_QUERIES:
        st.info(f"The grid search cross-validates over queries, so it needs at least "
                f"{fusion_tuning.MIN_GRID_QUERIES} judged queries, each its own fold at least; "
                f"this set has {n}. {FEW_HINT}", icon=":material/info:")
        return
    runs = mode_runs([run_a, run_b], queries, k=fusion_tuning.DEPTH)
    a, b, c = st.columns(3)
    metric = a.selectbox("Metric", ["mrr", "ndcg@10", "p@1"], key="tune_grid_metric")
    most = min(10, n)  # no more folds than queries
    folds = b.number_input("Folds", 2, most, min(5, most), key=f"tune_folds_{most}",
                           help=f"k-fold cross-validation over the {n} judged queries (2 to {most})")
    seed = c.number_input("Seed", 0, 10_000, 0, key="tune_grid_seed")
    result = fusion_tuning.grid_search(run_a, run_b, runs[run_a], runs[run_b], qrels, metric=metric,
                                       folds=int(folds), seed=int(seed))
    c = st.columns(3)
    c[0].metric(f"Cross-validated {metric}", f"{result.cv_score:.3f}",
                help="each query scored by the knobs chosen on the other folds")
    c[1].metric(f"In-sample best {metric}", f"{result.in_sample['score']:.3f}",
                help=md_escape(result.in_sample["mode"]))
    c[2].metric("Optimism (in-sample − CV)", f"{result.optimism:+.3f}", delta_color="off")
    baselines(result, queries, qrels, probe=probe)  # the verdict first, the grid behind it
    weights, ks, scores = fusion_tuning.grid_matrix(result)
    st.plotly_chart(grid_heatmap(weights, ks, scores, metric=metric, best=result.in_sample["params"]),
                    width="stretch")
    with st.expander("Per-fold choices"):
        folds_table = pd.DataFrame(result.folds).assign(params=lambda d: d["params"].map(str))
        st.dataframe(folds_table, width="stretch", hide_index=True)
