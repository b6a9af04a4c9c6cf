"""``python -m palace_lab.synth OUT``: write the synthetic corpus."""

from palace_lab.synth import main

raise SystemExit(main())
