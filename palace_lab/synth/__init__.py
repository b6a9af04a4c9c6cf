"""A synthetic Claude Code history, sized like the paper's corpus, for scale tests.

Separate from the hand-written sample data: nothing here is meant to be read, only to load the
pipeline as a real history would. ``generate`` writes, under ``out_dir``:

- ``claude_code/<-home-dev-src-project>/<sessionId>.jsonl``: Claude Code 2.x session files
  (the ``~/.claude/projects`` layout, as ``sample_data/`` has it): compact JSON records with
  ``parentUuid`` chains, one assistant content block per line sharing ``message.id`` and
  ``usage``, ``tool_use``/``tool_result`` pairs with ``toolUseResult``, and ``progress`` and
  ``file-history-snapshot`` records that the ingest skips. Queries stay outside this folder, so
  ingesting it reads only sessions.
- ``queries.jsonl`` (``query_id``, ``query``, ``type``) and ``qrels.txt`` (TREC): known-item
  queries, each built from what only one exchange contains (a minted identifier, file path or
  error) or, for ``conceptual`` queries, from a paraphrase of its topic, where exchanges of the
  same topic are judged partly relevant.

Invariants: the same arguments give the same bytes (one ``random.Random`` per concern, seeded
from ``seed``; no set is ever iterated). Every session opens with its first request, and every
request is a plain user record, so ingest yields exactly ``exchanges`` exchanges whose ids are
``exchange_id_for(sessionId, uuid of the request record)``. Shape (defaults follow the paper:
14,340 exchanges in ~4,182 sessions over 6 projects and ~6 months): session sizes are geometric
with mean 3.43; an exchange's verbatim text is log-normal, ~1,400 characters (~370 tokens) on
average with a long tail; identifiers, paths and errors are drawn per project with Zipf
weights, so common names recur across many exchanges and a search has real competitors.
"""

from __future__ import annotations

import argparse
import json

from palace_lab.synth.writing import QUERY_TYPES, SynthSummary, generate

__all__ = ["QUERY_TYPES", "SynthSummary", "generate", "main"]


# -- command line -----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m palace_lab.synth", description=__doc__.split(
        "\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--exchanges", type=int, default=14340)
    ap.add_argument("--projects", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON document")
    args = ap.parse_args(argv)
    try:
        summary = generate(args.out_dir, exchanges=args.exchanges, projects=args.projects,
                           seed=args.seed, queries=args.queries)
    except (ValueError, OSError) as exc:
        ap.exit(2, f"error: {exc}\n")
    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        print(f"{summary.exchanges} exchanges in {summary.conversations} sessions "
              f"({', '.join(summary.projects)}), {summary.bytes / 1e6:.1f} MB; "
              f"{summary.queries} queries, {summary.judgments} judgments -> {summary.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
