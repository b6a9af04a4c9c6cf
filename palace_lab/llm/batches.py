"""The Message Batches API over one :class:`~palace_lab.llm.client.LLMClient`: submit, poll,
read the results, at half price.

Concept: a batch is a list of ``{"custom_id", "params"}`` items, each ``params`` the body of
one structured call (:meth:`LLMClient.message_params`). :class:`MessageBatches` sends them with
the client's key, retries and cost cap, and turns the ended batch into ``{custom_id:
LLMResult}`` validated like a live answer.

Invariants:

- Every item is redacted again before it is sent, whoever built it: a batch is a door out of
  the machine too.
- The worst case of a whole batch (at the batch price) is reserved under the client's cap
  before it is submitted, and stays reserved until :meth:`MessageBatches.results` charges what
  each item really cost; a batch over the cap is never submitted.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from palace_lab.errors import DistillError
from palace_lab.llm.base import CallFailed, LLMResult, Tool
from palace_lab.llm.client import block_dict, interpret_reply, redacted_request
from palace_lab.llm.cost import Usage, worst_case_cost

if TYPE_CHECKING:
    from palace_lab.llm.client import LLMClient

ItemCheck = Callable[[str, dict], list[str]]


@dataclass(frozen=True)
class BatchStatus:
    batch_id: str
    processing_status: str
    request_counts: dict[str, int]

    @property
    def ended(self) -> bool:
        return self.processing_status == "ended"


class MessageBatches:
    """The batches of one client (its key, retries, cost cap). Thread-safe."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self._reserved: dict[str, float] = {}
        self._lock = threading.Lock()

    def submit(self, requests: Sequence[Mapping[str, Any]]) -> str:
        """Create a Message Batch of ``{"custom_id", "params"}`` items; returns its id."""
        if not requests:
            raise ValueError("a batch needs at least one request")
        client = self.client
        requests = [redacted_request(r) for r in requests]
        held = client.cost_cap.reserve(sum(
            worst_case_cost(json.dumps(r["params"]), r["params"]["max_tokens"], client.price,
                            batch=True)
            for r in requests
        ))
        try:
            batch, _ = client.with_retries(
                lambda: client.sdk().messages.batches.create(requests=list(requests))
            )
        except BaseException as exc:
            client.cost_cap.settle(held, Usage())
            if isinstance(exc, CallFailed):
                raise DistillError(f"could not submit the batch: {exc}") from None
            raise
        with self._lock:
            self._reserved[batch.id] = held
        return batch.id

    def poll(self, batch_id: str) -> BatchStatus:
        """The batch's processing status and request counts."""
        client = self.client
        try:
            batch, _ = client.with_retries(
                lambda: client.sdk().messages.batches.retrieve(batch_id))
        except CallFailed as exc:
            raise DistillError(f"could not poll batch {batch_id}: {exc}") from None
        counts = batch.request_counts
        counts = counts.model_dump() if hasattr(counts, "model_dump") else dict(counts or {})
        return BatchStatus(batch.id, batch.processing_status, counts)

    def results(
        self, batch_id: str, tool: Tool, *, check: ItemCheck | None = None
    ) -> dict[str, LLMResult]:
        """``{custom_id: LLMResult}`` of an ended batch, validated, charged at batch price.

        ``check(custom_id, answer)`` adds per-item errors. An item the API did not answer has
        no ``reply``; an invalid answer keeps its ``reply`` for :meth:`LLMClient.repair`.
        """
        client = self.client
        try:
            lines, _ = client.with_retries(
                lambda: list(client.sdk().messages.batches.results(batch_id))
            )
        except CallFailed as exc:
            raise DistillError(f"could not read the results of batch {batch_id}: {exc}") from None
        results = {line.custom_id: self._item(line, tool, check) for line in lines}
        with self._lock:
            held = self._reserved.pop(batch_id, 0.0)
        client.cost_cap.settle(held, Usage())
        return results

    def _item(self, line: Any, tool: Tool, check: ItemCheck | None) -> LLMResult:
        result = line.result
        if result.type != "succeeded":
            detail = getattr(getattr(getattr(result, "error", None), "error", None), "message", "")
            return LLMResult(None, f"batch item {result.type}" + (f": {detail}" if detail else ""))
        usage = Usage.from_api(result.message.usage)
        cost = self.client.cost_cap.settle(0.0, usage, batch=True)
        blocks = tuple(block_dict(b) for b in result.message.content or ())
        item_check = (lambda data: check(line.custom_id, data)) if check else None
        return interpret_reply(blocks, tool, item_check, usage=usage, cost=cost, attempts=1)
