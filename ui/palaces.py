"""Which palace is open, and where a load goes: the sample and one's own history never mix.

- The sample palace is ``PALACE_LAB_SAMPLE_DB`` or ``.palace/sample.db`` in the checkout (what
  ``./lab app`` builds).
- One's own palaces live in ``PALACE_LAB_PALACES``, else ``$XDG_DATA_HOME/palace_lab``, else
  ``~/.local/share/palace_lab``; the first is ``my-history.db``.
- Loading one's own files into a palace that holds the sample goes into a palace of its own;
  loading the sample into a palace of one's own history goes into the sample palace.
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from palace_lab.store.contents import holds_sample, palace_contents
from ui.exchange import md_escape
from ui.state import ROOT, SAMPLE_DATA, db_path, distiller_versions, palace, palace_at

OWN_NAME = "my-history.db"


def sample_db() -> Path:
    chosen = os.environ.get("PALACE_LAB_SAMPLE_DB") or ROOT / ".palace" / "sample.db"
    return Path(chosen).expanduser().resolve()


def palaces_dir() -> Path:
    chosen = os.environ.get("PALACE_LAB_PALACES")
    if chosen:
        return Path(chosen).expanduser().resolve()
    data = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return (Path(data) / "palace_lab").expanduser().resolve()


def known_palaces() -> list[Path]:
    """The open palace, the sample's, and every palace file in :func:`palaces_dir`."""
    found = [db_path(), sample_db()]
    if palaces_dir().is_dir():
        found += sorted(p.resolve() for p in palaces_dir().glob("*.db"))
    return list(dict.fromkeys(found))


def is_sample(path: Path) -> bool:
    return path == sample_db() or (path.exists() and holds_sample(palace_at(str(path)), SAMPLE_DATA))


def target_for(kind: str) -> Path:
    """Where a load of ``kind`` (``"sample"`` or ``"own"``) goes from the open palace."""
    here, open_palace = db_path(), palace()
    if kind == "own":
        if here == sample_db() or holds_sample(open_palace, SAMPLE_DATA):
            return palaces_dir() / OWN_NAME
        return here
    if open_palace.count("exchanges") and not holds_sample(open_palace, SAMPLE_DATA):
        return sample_db()
    return here


def open_palace(path: str | Path) -> None:
    """Open ``path`` for this session and name it in the address, where a reload finds it."""
    st.session_state["db_path"] = st.query_params["db"] = str(Path(path).expanduser().resolve())


def label(path: Path) -> str:
    return "Bundled sample" if path == sample_db() else path.stem


def _picked() -> None:
    open_palace(st.session_state["sb_palace"])


def palace_picker() -> None:
    """The known palaces, the sample one click away, another file by path."""
    here, choices = db_path(), [str(p) for p in known_palaces()]
    if st.session_state.get("sb_palace") != str(here):
        st.session_state["sb_palace"] = str(here)
    st.selectbox("Palace", choices, key="sb_palace", on_change=_picked,
                 format_func=lambda p: label(Path(p)), help="palaces of your own live in "
                 f"{palaces_dir()}; the sample's is {sample_db()}")
    if here != sample_db():
        st.button("Open the sample palace", key="sb_sample", on_click=open_palace,
                  args=(sample_db(),), type="tertiary", icon=":material/science:")
    with st.expander("Another palace file"):
        path = st.text_input("Palace file", key="sb_db", placeholder="~/palaces/work.db")
        if path and st.button("Open", key="sb_db_go"):
            open_palace(path)
            st.rerun()


def contents_caption() -> None:
    """What the open palace holds: counts, projects, sources, time span."""
    from ui.state import distiller_version

    p, version = palace(), distiller_version()
    c = p.while_unchanged("contents", lambda: palace_contents(p))
    made = next((v["cards"] for v in distiller_versions() if v["version"] == version), 0)
    st.caption(md_escape(db_path()))
    st.caption(f"{c.exchanges:,} exchanges · {c.conversations:,} conversations · {made:,} cards"
               + (f" of {md_escape(version)}" if version else "") + f" · {c.judgments:,} judgments")
    if c.projects:
        shown = ", ".join(f"{md_escape(n)} ({k})" for n, k in c.projects[:6])
        more = len(c.projects) - 6
        st.caption(f"**{len(c.projects)} projects:** {shown}" + (f", +{more} more" if more > 0 else ""))
    if c.sources:
        st.caption("**Sources:** " + ", ".join(f"{md_escape(n)} ({k} conversations)"
                                               for n, k in c.sources))
    if c.first:
        st.caption(f"**From** {md_escape(c.first[:10])} **to** {md_escape(c.last[:10])}")


def destination(kind: str) -> Path:
    """Where this load goes, said on the page; a palace of one's own can be renamed first."""
    target, here = target_for(kind), db_path()
    if target == here:
        st.caption(f"Goes into the open palace **{md_escape(label(here))}**.")
        return here
    if kind == "sample":
        st.caption(f"The open palace holds your own history, so the sample goes into its own "
                   f"palace, **{md_escape(label(target))}** ({md_escape(target)}).")
        return target
    st.caption("The open palace holds the bundled sample: your history goes into a palace of "
               "its own (the sample stays one click away in the sidebar).")
    chosen = st.text_input("New palace file", str(target), key="load_target")
    return Path(chosen or str(target)).expanduser().resolve()


def into(target: Path):
    """The palace at ``target``, made (with its folder) when it is new."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return palace_at(str(target))
