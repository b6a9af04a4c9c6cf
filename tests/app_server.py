"""Start the real Streamlit server on 127.0.0.1 and drive it with Chromium (Playwright), for the
browser tests and the app benchmark. Never downloads a browser: Debian's /usr/bin/chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def browser_missing() -> str | None:
    """Why a browser test cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is absent (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright; never `playwright install`)"
    return None


def browser_ready(tool: str) -> bool:
    """For a benchmark: True when the real browser can run here (and the model hub is kept
    offline for the servers it starts), else False with the reason on stderr."""
    import sys

    missing = browser_missing()
    if missing:
        print(f"{tool} skipped: {missing}", file=sys.stderr)
        return False
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(env: dict[str, str], *, port: int | None = None, timeout: float = 120.0):
    """``url`` of a running ``streamlit run app.py``; the server is stopped on exit. Reusing a
    ``port`` lets the browser reuse its cache of Streamlit's static files, as a person's does."""
    port = port or free_port()
    from palace_lab.cli.app import streamlit_command

    cmd = streamlit_command(port)  # as `palace-lab app` starts it (no file watcher)
    log = open(Path(env.get("PALACE_LAB_CACHE_DIR", "/tmp")) / f"streamlit-{port}.log", "w")
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1", **env},
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"streamlit did not answer on {url} within {timeout:.0f} s")


@contextmanager
def chromium(width: int = 1500, height: int = 1000):
    """A Playwright page in Debian's Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()


SCRIPT_STATE = ("() => document.querySelector('[data-testid=\"stApp\"]')"
                "?.getAttribute('data-test-script-state')")


def settle(page, timeout: float = 180_000) -> None:
    """Wait until the script run is over: the app root says ``notRunning`` twice in a row
    (a rerun can start right after a run ends), then give the frontend a moment to paint."""
    for _ in range(2):
        page.wait_for_timeout(250)
        page.wait_for_function(f"() => ({SCRIPT_STATE})() === 'notRunning'", timeout=timeout)
    page.wait_for_timeout(300)


def lab_search(page, query: str, timeout: float = 600_000) -> None:
    """Type ``query`` into the Search lab and wait until its results are shown."""
    box = page.get_by_label("Query", exact=True)
    box.fill(query)
    box.press("Enter")
    page.locator(".st-key-lab_metrics_a").wait_for(timeout=timeout)
    settle(page, timeout)
