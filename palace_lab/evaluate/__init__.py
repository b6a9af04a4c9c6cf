"""Evaluation: graded qrels, runs, metrics, paired tests and the paper-style table.

Runs and qrels are plain ``{query_id: {exchange_id: value}}`` dicts (:mod:`.base`); metrics
are selected by name (``"mrr"``, ``"p@1"``, ``"ndcg@10"``; :mod:`.metrics`). Nothing heavy is
imported here: scipy and pandas load inside the functions that need them.
"""

from palace_lab.evaluate.base import DEFAULT_REL_LEVEL, Qrels, Run, ranked
from palace_lab.evaluate.io import (
    read_qrels, read_queries, read_run, write_qrels, write_queries, write_run,
)
from palace_lab.evaluate.metrics import METRICS, coverage, evaluate, parse_metric, per_query
from palace_lab.evaluate.report import PAPER_METRICS, PaperReport, evaluate_modes, paper_table
from palace_lab.evaluate.stats import Comparison, compare, compare_values
from palace_lab.evaluate.sweep import pool, sweep, tune, unjudged_report

__all__ = [
    "DEFAULT_REL_LEVEL", "METRICS", "PAPER_METRICS", "Comparison", "PaperReport", "Qrels", "Run",
    "compare", "compare_values", "coverage", "evaluate", "evaluate_modes", "paper_table",
    "parse_metric", "per_query", "pool", "ranked", "read_qrels", "read_queries", "read_run",
    "sweep", "tune", "unjudged_report", "write_qrels", "write_queries", "write_run",
]
