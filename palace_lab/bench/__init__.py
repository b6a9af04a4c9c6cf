"""Public memory benchmarks (LoCoMo, DevMemBench, LongMemEval) read from their own files,
run through a palace of their own, and reported as the paper's table plus session recall."""

from palace_lab.bench.base import Benchmark, Question, gold_sessions, qrels_for
from palace_lab.bench.pipeline import (
    FORMATS, BenchReport, build_palace, detect, load_benchmark, run_benchmark, session_recall,
)

__all__ = ["FORMATS", "BenchReport", "Benchmark", "Question", "build_palace", "detect",
           "gold_sessions", "load_benchmark", "qrels_for", "run_benchmark", "session_recall"]
