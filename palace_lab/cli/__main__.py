"""``python -m palace_lab.cli``: the same as ``palace-lab``."""

from palace_lab.cli.main import main

raise SystemExit(main())
