"""Expected errors are raised as domain errors where they are found, and reach the person as
one line: validation is an InputError (a PalaceError and a ValueError), so no caller catches
piecemeal."""

from __future__ import annotations

import pytest

from palace_lab.cli import main
from palace_lab.errors import InputError, PalaceError
from palace_lab.evaluate import read_qrels, read_queries


def test_validation_errors_are_domain_errors(tmp_path):
    assert issubclass(InputError, PalaceError) and issubclass(InputError, ValueError)
    with pytest.raises(InputError, match="cannot read .*missing.jsonl"):
        read_queries(tmp_path / "missing.jsonl")
    bad = tmp_path / "qrels.txt"
    bad.write_text("q1 0 x1 1e400\n")  # a grade that overflows an int is still one clear line
    with pytest.raises(InputError, match="not one of 0, 1, 2, 3"):
        read_qrels(bad)


def test_eval_with_a_missing_queries_file_is_one_line(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 x1 2\n")
    code = main(["eval", "--db", str(tmp_path / "p.db"), "--queries", "missing.jsonl",
                 "--qrels", str(qrels)])
    err = capsys.readouterr().err
    assert code == 1
    assert err == "palace-lab: error: cannot read missing.jsonl: No such file or directory\n"
