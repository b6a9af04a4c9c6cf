"""Structured LLM calls: :mod:`~palace_lab.llm.client` (Anthropic, live),
:mod:`~palace_lab.llm.batches` (Anthropic's Message Batches),
:mod:`~palace_lab.llm.openai` (OpenAI-compatible servers), the policy both share
(:mod:`~palace_lab.llm.base`), prices and the cost cap (:mod:`~palace_lab.llm.cost`) and the
answer's schema check (:mod:`~palace_lab.llm.schema`)."""
