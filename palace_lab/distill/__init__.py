"""Structured distillation: exchanges → 4-field distilled cards (see :mod:`.base`)."""

from palace_lab.distill.base import DISTILLERS, Distiller, DistillOutcome, get_distiller

__all__ = ["DISTILLERS", "Distiller", "DistillOutcome", "get_distiller"]
