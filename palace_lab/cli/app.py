"""Start the Streamlit lab (``palace-lab app``): local only, no usage statistics, and no file
watcher (Streamlit would otherwise watch the whole checkout, ``.venv`` included, and flood the
log with "Inotify queue overflowed"; a person using the lab does not edit its source)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"


def launch(*, db: str | None = None, port: int = 8501, headless: bool = False) -> int:
    if not APP.exists():
        from palace_lab.errors import PalaceError

        raise PalaceError(f"the app entry point {APP} is missing (install from a checkout)")
    # Streamlit's first start asks for an e-mail address on the terminal unless headless; a start
    # with no terminal to answer it (a script, a service, CI) would end at that prompt.
    headless = headless or not sys.stdin.isatty()
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    if db:
        env["PALACE_LAB_DB"] = str(Path(db).expanduser().resolve())
    return subprocess.call(streamlit_command(port, headless=headless), env=env, cwd=APP.parent)


def streamlit_command(port: int, *, headless: bool = True) -> list[str]:
    """How the lab is started (also by the browser tests and ``benchmarks/bench_app.py``, so
    that what they time is what a person runs)."""
    return [sys.executable, "-m", "streamlit", "run", str(APP), "--server.address", "127.0.0.1",
            "--server.port", str(port), "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none",
            "--server.headless", "true" if headless else "false"]
