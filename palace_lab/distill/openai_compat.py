"""The OpenAI-compatible distiller: cards from a model on a server the person runs.

Concept: the shared LLM distiller (:mod:`palace_lab.distill.llm_distiller`: the project's
prompt, redaction before sending, schema check, one repair turn, fallback card, cost cap) over
:class:`palace_lab.llm.openai.OpenAICompatClient` — Ollama, llama.cpp's server, vLLM, LM
Studio, anything serving ``/v1/chat/completions``. No key, no cost and nothing leaving the
machine are the defaults; a key (named by the environment variable that holds it) and prices
are opt-in, for a remote server.

Invariants (beyond the shared ones):

- The version is ``openai-compat:<model>:<prompt-hash>``, the same prompt hash as the
  Anthropic cards of the same template, so the two sit side by side for A/B.
- Runs are live only (these servers have no batch API); a run resumes because the runner
  stores cards in small atomic batches and sends only the exchanges still pending.
- The configuration stored with the version names the server (its URL), never the key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from palace_lab.distill.base import Distiller, register
from palace_lab.distill.llm_distiller import DEFAULT_MAX_EXCHANGE_CHARS, LLMDistiller
from palace_lab.distill.prompt import DEFAULT_TEMPLATE
from palace_lab.errors import DistillError
from palace_lab.llm.cost import price_or_free
from palace_lab.llm.openai import BACKEND, OpenAICompatClient, api_base, require_model


def key_from_env(variable: str | None) -> str | None:
    """The key held by environment variable ``variable`` (None: no key is sent)."""
    if not variable:
        return None
    value = os.environ.get(variable)
    if not value:
        raise DistillError(f"the environment variable {variable} (--api-key-env) is not set")
    return value


@register(BACKEND)
class OpenAICompatDistiller(LLMDistiller):
    """Cards written by a model behind an OpenAI-compatible API; see the module docstring."""

    backend = BACKEND

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        template: str = DEFAULT_TEMPLATE,
        max_concurrency: int = 1,
        max_cost_usd: float | None = None,
        prices: Mapping[str, Mapping[str, float]] | str | Path | None = None,
        max_retries: int = 4,
        timeout: float = 300.0,
        backoff_base_s: float = 1.0,
        response_format: str = "auto",
        max_exchange_chars: int = DEFAULT_MAX_EXCHANGE_CHARS,
        fallback: Distiller | None = None,
    ) -> None:
        require_model(model)
        self.base_url = api_base(base_url)
        self.prices = prices
        super().__init__(
            model=model, price=price_or_free(model, prices), template=template,
            max_concurrency=max_concurrency, max_cost_usd=max_cost_usd, max_retries=max_retries,
            timeout=timeout, backoff_base_s=backoff_base_s,
            max_exchange_chars=max_exchange_chars, fallback=fallback,
        )
        self.response_format = response_format
        self._api_key = api_key if api_key is not None else key_from_env(api_key_env)

    @property
    def config(self) -> dict:
        return {**super().config, "base_url": self.base_url}

    def make_client(self) -> OpenAICompatClient:
        return OpenAICompatClient(base_url=self.base_url, api_key=self._api_key, prices=self.prices,
                                  response_format=self.response_format, **self.client_options())
