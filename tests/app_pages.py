"""The app through Streamlit's AppTest, for the page tests and for other folders' tests that
end in a page (the OpenAI-compatible run shown on the Load page)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def start(page: str | None = None):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    if page:
        at.switch_page(page)
        at.run()
    return at


def clean(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
