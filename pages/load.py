"""Load & distill: bring a history in, see what was found, distill it live."""

from pathlib import Path

import streamlit as st

from palace_lab.distill import get_distiller
from palace_lab.distill.plan import plan_distill
from ui.loading import (BACKENDS, agent_histories, distiller_options, load_sample, run_distill,
                        run_ingest, saved_uploads, show_report)
from ui.palaces import destination, into, open_palace
from ui.state import SAMPLE_DATA, guard, palace

st.title("Load & distill")
p = palace()
source = st.radio("Source", ["Bundled sample", "Upload files", "Local folder or file"],
                  horizontal=True, key="load_source")
with guard():
    if source == "Bundled sample":
        st.caption(f"Three projects over two months, in Claude Code, Codex and ChatGPT formats ({SAMPLE_DATA.name}/).")
        target = destination("sample")
        if st.button("Load the sample", type="primary", key="load_sample"):
            load_sample(into(target), SAMPLE_DATA)
            open_palace(target)
            st.rerun()
        if "load_queries" in st.session_state:
            q = st.session_state["load_queries"]
            st.caption(f"The sample's {q['queries']} graded queries ({q['judgments']} judgments) are "
                       "stored as query set **sample**, for the Search lab and Evaluation.")
    elif source == "Upload files":
        files = st.file_uploader("Export files (.jsonl, .json, .zip, .md, .vscdb)", accept_multiple_files=True,
                                 type=["jsonl", "json", "zip", "md", "vscdb"], key="load_files")
        target = destination("own")
        if files and st.button("Ingest uploads", type="primary", key="load_upload_go"):
            with saved_uploads(files) as folder:
                run_ingest(into(target), [folder])
            open_palace(target)
            st.rerun()
    else:
        found = agent_histories()
        where = st.text_input("Path", placeholder="~/.claude/projects  or  ~/.codex/sessions  or  ~ (every agent)",
                              key="load_path")
        target = destination("own")
        paths = found + ([Path(where).expanduser()] if where else [])
        if paths and st.button("Ingest", type="primary", key="load_path_go"):
            run_ingest(into(target), paths)
            open_palace(target)
            st.rerun()
    if "load_report" in st.session_state:
        show_report(st.session_state["load_report"])

st.divider()
st.subheader("Distill")
backend = st.radio("Distiller", list(BACKENDS), horizontal=True, key="load_backend",
                   captions=list(BACKENDS.values()))
with guard():
    distiller = get_distiller(backend, **distiller_options(backend))
    plan = plan_distill(p, distiller)
    st.caption(f"Version **{plan.version}** · {len(plan.pending):,} pending of {plan.in_scope:,} exchanges"
               + (f" · estimated cost **${plan.cost_usd:.4f}**" if plan.paid else ""))
    confirmed = not plan.paid or st.checkbox(plan.confirmation(), key="load_confirm")
    if st.button("Distill", type="primary", disabled=not plan.pending or not confirmed, key="load_distill"):
        st.session_state["load_distilled"] = run_distill(p, distiller)
        st.rerun()  # so the pending count and the sidebar say what the palace holds now
    if result := st.session_state.get("load_distilled"):
        st.success(f"{result['made']} cards made, {result['cached']} already there, "
                   f"{result['failed']} fallbacks, ${result['cost_usd']:.4f}"
                   + (f" — stopped: {result['stopped']}" if result["stopped"] else ""))
    st.caption("Leaving the page or pressing any button stops a run; what was made is kept "
               "and the next run resumes with the rest.")

st.divider()
st.subheader("Live ingest")
with guard():
    from palace_lab.agent.watch import last_status

    last = last_status(p)
    if last is None:
        st.caption("No watcher has run on this palace. `palace-lab watch ~/.claude/projects "
                   "~/.codex/sessions --db DB` ingests, distills and indexes new work as it is "
                   "written.")
    else:
        st.caption(f"Last watch pass **{last['at']}**: {last['files']} files looked at, "
                   f"{last['ingested']} ingested, {last['new_exchanges']} new exchanges, "
                   f"{last['distilled']} distilled, **{last['pending']} pending**"
                   + "".join(f", {last[k]} {k}" for k in ("vanished", "shrunk", "deleted")
                             if last.get(k)))
        for error in last.get("errors", [])[:5]:
            st.warning(error)
