"""The tour notebook runs top to bottom, so it cannot rot."""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[2]


def test_tour_notebook_executes(monkeypatch):
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")  # the real model is tested elsewhere
    nb = nbformat.read(ROOT / "notebooks" / "tour.ipynb", as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT / "notebooks")}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "ratio_of_totals" in text  # the budget cell printed both definitions
    assert "\n1 " in "\n" + text  # the search cell printed a first hit
    assert "# Memory pack" in text
    summary = next(c for c in nb.cells if c.source.startswith("evaluation.summary"))
    assert "best_verbatim" in str(summary.outputs[0]["data"]["text/plain"])
