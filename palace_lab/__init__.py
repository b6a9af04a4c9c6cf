"""palace_lab: a lab for one person's agent memory.

Data flow (one module per step): ingest (export files → conversations) → segment (exchanges,
the verbatim layer) → distill (4-field cards, the distilled layer) → embed + index → search
(pure and cross-layer modes) → evaluate (graded judgments); budget, rooms and the memory
lifecycle beside them. Everything lives in one SQLite palace file (:mod:`palace_lab.store`).

Importing this package is cheap: models, the Anthropic SDK and plotting load only when used.
"""

__version__ = "0.1.0"
