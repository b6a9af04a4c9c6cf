"""``palace-lab``, the command line: :mod:`~palace_lab.cli.main` parses and dispatches,
:mod:`~palace_lab.cli.search` and :mod:`~palace_lab.cli.agent` add their commands,
:mod:`~palace_lab.cli.views` turns results into text, :mod:`~palace_lab.cli.app` starts the lab."""

from palace_lab.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
