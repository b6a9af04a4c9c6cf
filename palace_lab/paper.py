"""The paper's reported figures, in one place: what the lab's own figures are read against.

Every page, chart and summary that says "the paper: …" takes its numbers from here, so a
corrected figure is corrected everywhere. Source: arXiv 2603.13017 (14,340 exchanges of one
person's Claude Code history).

- :data:`BUDGET`: tokens an exchange on average, verbatim vs core (``exchange_core`` +
  ``specific_context``), and per 1,000 exchanges; :data:`RATIO_NAME` is how the paper names
  that compression (371 → 38 tokens is 9.8x as a ratio of means; the paper says 11x).
- :data:`RETRIEVAL`: MRR of the best verbatim, best distilled and best cross-layer modes, and
  the two derived figures the paper reports (distilled / verbatim, cross-layer gain).
"""

from __future__ import annotations

SOURCE = "arXiv 2603.13017"
BUDGET = {"exchanges": 14340, "verbatim_mean": 371, "core_mean": 38,
          "per_1000": {"verbatim": 407_000, "core": 39_000}, "source": SOURCE}
RATIO_NAME = "11x"
RETRIEVAL = {"best_verbatim_value": 0.745, "best_distilled_value": 0.717,
             "distilled_over_verbatim": 0.96, "best_cross_value": 0.759, "cross_gain": 0.014}
RETRIEVAL_TEXT = (f"Paper: best distilled {RETRIEVAL['best_distilled_value']} / best verbatim "
                  f"{RETRIEVAL['best_verbatim_value']} = "
                  f"{RETRIEVAL['distilled_over_verbatim']:.0%}; best cross-layer "
                  f"{RETRIEVAL['best_cross_value']} ({RETRIEVAL['cross_gain']:+.3f}).")
# Reference lines of the mode bar chart: label -> MRR.
REFERENCE_LINES = {f"paper: best verbatim {RETRIEVAL['best_verbatim_value']}":
                   RETRIEVAL["best_verbatim_value"],
                   f"paper: best distilled {RETRIEVAL['best_distilled_value']}":
                   RETRIEVAL["best_distilled_value"]}
