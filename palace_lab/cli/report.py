"""``palace-lab report``: the palace's 11x story as one offline HTML file
(:mod:`palace_lab.report`)."""

from __future__ import annotations

import os
import sys
import time

from palace_lab.cli.common import EMBEDDER_HELP


def cmd_report(args) -> None:
    from palace_lab.cli.common import _emit, _palace
    from palace_lab.report import write_report

    start = time.perf_counter()
    with _palace(args) as palace:
        size = write_report(palace, args.out, title=args.title, query_set=args.queries,
                            distiller=args.distiller, embedder=args.embedder,
                            compute=not args.no_compute, progress=_progress())
    seconds = round(time.perf_counter() - start, 2)
    _emit(args, {"out": str(args.out), "bytes": size, "seconds": seconds},
          f"wrote {args.out}: {size:,} bytes in {seconds} s")


def _progress():
    """Index building, when the retrieval figures are measured first, said on stderr."""
    def tick(step: str, done: int, total: int) -> None:
        print(f"  {step}: {done:,}/{total:,}", file=sys.stderr, end="\r")
    return tick if sys.stderr.isatty() else None


def add_report_command(command) -> None:
    c = command("report", cmd_report, "write the palace's story (how much smaller the cards "
                "are, the retrieval they keep, typical cards) as one offline HTML file")
    c.add_argument("--out", required=True, help="the HTML file to write")
    c.add_argument("--queries", metavar="SET", help="graded query set for the retrieval figures "
                   "(default: the sample's, else the first graded set)")
    c.add_argument("--title", help="the report's title (default: names the palace)")
    c.add_argument("--distiller", help="distiller version (default: the palace's default)")
    c.add_argument("--embedder", default=os.environ.get("PALACE_LAB_EMBEDDER") or "minilm",
                   help=EMBEDDER_HELP)
    c.add_argument("--no-compute", action="store_true", help="do not measure retrieval figures "
                   "that are not cached (the report then says they are not computed yet)")
