"""``files.write_atomic``: the one "temporary file, then rename" of palace_lab."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from palace_lab.files import write_atomic

ROOT = Path(__file__).resolve().parents[2]


def test_text_bytes_and_a_writer_land_whole_and_leave_nothing_beside(tmp_path):
    assert write_atomic(tmp_path / "a" / "t.json", "{}\n").read_text() == "{}\n"
    assert (tmp_path / "b.bin").exists() is False
    write_atomic(tmp_path / "b.bin", b"\x00\x01")

    def save(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            np.save(fh, np.arange(3))

    write_atomic(tmp_path / "c.npy", save)
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert np.load(tmp_path / "c.npy").tolist() == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b.bin", "c.npy", "t.json"]


def test_a_failed_write_keeps_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "prefs.json"
    write_atomic(target, "old")

    def half(tmp: Path) -> None:
        tmp.write_text("ne")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, half)
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["prefs.json"]


def test_no_module_renames_a_temporary_file_of_its_own():
    """Every file write by rename goes through write_atomic (folders swap by their own rule:
    index/cache.py, distill/corpus.py, store/opening.py)."""
    folder_swaps = {"files.py", "cache.py", "corpus.py", "opening.py"}
    offenders = []
    for path in (ROOT / "palace_lab").rglob("*.py"):
        if path.name in folder_swaps:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                    ast.unparse(node.func) == "os.replace"
                    or (node.func.attr == "replace" and len(node.args) == 1
                        and ast.unparse(node.args[0]) in ("path", "target"))):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == [], offenders
