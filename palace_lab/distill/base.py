"""The distiller interface and its registry.

A distiller turns exchanges into distilled cards. Every card records the *distiller version*
that made it: ``backend:model:prompt-hash`` (for example ``rules:v1`` or
``anthropic:claude-haiku-4-5:3fa2c1d0``), so several versions of one exchange coexist in the
palace and can be compared. ``files_touched`` always comes from the regular expression in
:mod:`palace_lab.files`, never from a model.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from palace_lab.errors import DistillError
from palace_lab.model import DistilledCard, Exchange


@dataclass(frozen=True)
class DistillOutcome:
    """One exchange's result: a card, and whether it is a fallback after a failure."""

    card: DistilledCard
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(frozen=True)
class CorpusStats:
    """Palace-wide statistics a distiller may use (e.g. distinctive terms per exchange).

    ``term_df`` maps a lower-cased term to the number of exchanges containing it, ``stem_df``
    a BM25 stem likewise (the index's own view of a term); ``n_docs`` is the number of
    exchanges. Empty for a distiller that needs none.
    """

    n_docs: int = 0
    term_df: dict[str, int] = field(default_factory=dict)
    stem_df: dict[str, int] = field(default_factory=dict)  # by BM25 stem (keywords' idf)
    dialogue_mean: float = 0.0  # mean cl100k tokens of an exchange's dialogue (0: unknown)


class Distiller(ABC):
    """A backend. Subclasses set ``backend`` and implement ``version`` and ``distill_batch``."""

    backend: str = ""

    @property
    @abstractmethod
    def version(self) -> str:
        """``backend:model:prompt-hash``; equal versions must make equal cards."""

    @abstractmethod
    def distill_batch(
        self, exchanges: Sequence[Exchange], *, stats: CorpusStats
    ) -> list[DistillOutcome]:
        """Cards for ``exchanges``, in the same order. Never raises for one bad exchange."""

    def estimate_cost(self, exchanges: Sequence[Exchange]) -> float:
        """Dollars a run over ``exchanges`` would cost; 0 for offline backends."""
        return 0.0

    def prepare(self, exchanges: Sequence[Exchange]) -> None:  # noqa: B027 - optional hook
        """Called once before a run with every exchange to distill (e.g. to fit TF-IDF)."""


DISTILLERS: dict[str, Callable[..., Distiller]] = {}


def register(name: str) -> Callable[[Callable[..., Distiller]], Callable[..., Distiller]]:
    def deco(factory: Callable[..., Distiller]) -> Callable[..., Distiller]:
        DISTILLERS[name] = factory
        return factory

    return deco


def get_distiller(name: str, **options) -> Distiller:
    """Build the backend registered under ``name`` (importing the built-in ones lazily)."""
    _load_builtin()
    try:
        factory = DISTILLERS[name]
    except KeyError:
        valid = ", ".join(sorted(DISTILLERS))
        raise DistillError(f"unknown distiller {name!r}; valid distillers: {valid}") from None
    _check_options(name, factory, options)
    return factory(**options)


def _check_options(name: str, factory: Callable[..., Distiller], options: dict) -> None:
    """An option the backend does not take is one clear error, not a TypeError."""
    import inspect

    params = inspect.signature(factory).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    unknown = [k for k in options if k not in params]
    if unknown:
        valid = ", ".join(k for k in params if not k.startswith("_")) or "none"
        raise DistillError(f"the {name} distiller does not take {', '.join(unknown)}; "
                           f"its options: {valid}")


def _load_builtin() -> None:
    # Importing registers them; the LLM modules import their SDK or HTTP client only when used.
    from palace_lab.distill import anthropic_backend, openai_compat, rules  # noqa: F401
