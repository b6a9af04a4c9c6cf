"""Layout rules of STYLE.md that a test can hold."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_streamlit():
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "palace_lab").rglob("*.py")
                 if "streamlit" in imported_modules(p)]
    assert offenders == []


@pytest.mark.parametrize("code", [
    "import palace_lab, palace_lab.store, palace_lab.ingest",
    "from palace_lab.cli import build_parser; build_parser()",  # what `palace-lab --help` runs
])
def test_start_up_is_light(code):
    """Importing the core and building the CLI never pulls models, the SDK or the app."""
    import subprocess
    import sys

    probe = (f"import sys; {code}; print(','.join(m for m in ('torch', 'streamlit', 'anthropic',"
             " 'sentence_transformers', 'plotly', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
