"""palace_lab: a lab for one person's agent memory.

Data flow, one package per step: ``ingest`` (export files → conversations → exchanges, the
verbatim layer) → ``distill`` (4-field cards, the distilled layer) → ``index`` (the layers'
texts, embeddings, BM25/HNSW/exact indexes) → ``search`` (pure and cross-layer modes) →
``evaluate`` (graded judgments, metrics, tests) and ``experiments`` (query sets, A/B, card
versions, fusion tuning). Beside them: ``lifecycle`` (the memory lifecycle), ``agent`` (MCP,
hooks, watcher), ``llm`` (structured LLM calls and their cost), ``redact``, ``bench``,
``charts``, ``synth`` and the ``cli``. Everything lives in one SQLite palace file
(:mod:`palace_lab.store`). The loose modules are the shared nouns: ``model`` (value types),
``errors``, ``settings``, ``tokens``, ``files`` (files touched), ``budget``, ``rooms`` and
``paper`` (the paper's figures).

Importing this package is cheap: models, the Anthropic SDK and plotting load only when used.
"""

__version__ = "0.1.0"
