"""``palace-lab``: the command line. It parses options, calls the library, prints.

Every command that prints results takes ``--json`` and then prints exactly one JSON document
on stdout. Progress goes to stderr. Errors are one line on stderr and a non-zero exit, never a
traceback (``PALACE_LAB_DEBUG=1`` shows it).
"""

from __future__ import annotations

import argparse
import os
import sys

from palace_lab.cli.common import (EXIT_ERROR, EXIT_INTERRUPTED, EXIT_UNEXPECTED, _emit, _palace,
                                    _progress)
from palace_lab.errors import PalaceError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line instead of usage + message
        self.exit(EXIT_ERROR, f"palace-lab: error: {message} (see `{self.prog} --help`)\n")


def cmd_ingest(args) -> None:
    from palace_lab.ingest import ingest_paths
    from palace_lab.cli.views import ingest_text

    with _palace(args, create=True) as palace, _progress("ingest") as bar:
        def tick(done, total, path):
            bar.total = total
            bar.update(1)
        report = ingest_paths(palace, args.paths, args.format, progress=tick)
    _emit(args, report.to_dict(), ingest_text(report))


def cmd_verify(args) -> None:
    with _palace(args) as palace:
        report = palace.verify()
    _emit(args, report.to_dict(), f"{'ok' if report.ok else 'MISMATCH'}: {report.messages} messages,"
          f" {report.exchanges} exchanges, {report.cards} cards re-hashed"
          + "".join(f"\n  {m}" for m in report.mismatches))
    if not report.ok:
        raise SystemExit(EXIT_ERROR)


def cmd_exchanges(args) -> None:
    from palace_lab.cli.views import exchange_rows

    with _palace(args) as palace:
        rows = exchange_rows(palace)
    _emit(args, rows, "\n".join(f"{r['exchange_id']}  {r['conversation_id'][:12]}"
                                f"  {r['ply_start']}-{r['ply_end']}  {r['preview'][:90]}" for r in rows))


def cmd_cards(args) -> None:
    from palace_lab.redact import stored_card

    with _palace(args) as palace:
        version = args.distiller or palace.latest_distiller()
        cards = [stored_card(c).to_dict() for c in palace.cards(version)] if version else []
    _emit(args, cards, "\n".join(f"{c['exchange_id']}  {c['exchange_core']}\n    ↳ {c['specific_context']}"
                                 + (f"\n    ⌕ {' '.join(c['keywords'])}" if c["keywords"] else "")
                                 for c in cards) or "no cards: run `palace-lab distill` first")


def cmd_distill(args) -> None:
    from palace_lab.distill import get_distiller
    from palace_lab.distill.plan import plan_distill
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget

    given = {"model": args.model, "max_cost_usd": args.max_cost, "base_url": args.base_url,
             "api_key_env": args.api_key_env, "max_concurrency": args.concurrency,
             "timeout": args.timeout, "prices": args.prices}
    distiller = get_distiller(args.distiller, **{k: v for k, v in given.items() if v is not None})
    with _palace(args) as palace, _progress(f"distill {distiller.version}") as bar:
        plan = plan_distill(palace, distiller)
        if plan.paid and not args.yes:
            raise PalaceError(f"this run would cost about ${plan.cost_usd:.4f} for "
                              f"{len(plan.pending)} exchanges; rerun with --yes to confirm")
        def tick(done, total, outcomes):
            bar.total = total
            bar.update(len(outcomes))
        summary = distill_palace(palace, distiller, limit=args.limit, progress=tick, keep=keep_budget)
    d = summary.to_dict()
    _emit(args, d, f"{d['distiller']}: {d['made']} made, {d['cached']} cached, {d['failed']} "
          f"failed, ${d['cost_usd']:.4f}, {d['exchanges_per_second']} exchanges/s"
          + (f"\nstopped: {d['stopped']}" if d["stopped"] else ""))


def cmd_budget(args) -> None:
    from palace_lab.budget import palace_budget
    from palace_lab.cli.views import budget_text

    with _palace(args) as palace:
        summary, _ = palace_budget(palace, args.distiller, args.encoding)
    _emit(args, summary.to_dict(), budget_text(summary))


def cmd_app(args) -> None:
    from palace_lab.cli.app import launch

    raise SystemExit(launch(db=args.db, port=args.port, headless=args.headless))


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="palace-lab", description="A lab for one person's agent memory.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name, fn, help_, db=True, json_=True):
        c = sub.add_parser(name, help=help_, description=help_)
        if db:
            c.add_argument("--db", help="palace file (default: $PALACE_LAB_DB)")
        if json_:
            c.add_argument("--json", action="store_true", help="print one JSON document")
        c.set_defaults(fn=fn)
        return c

    from palace_lab.ingest import FORMATS

    c = command("ingest", cmd_ingest, "read export files or folders into the palace")
    c.add_argument("paths", nargs="+", metavar="PATH")
    c.add_argument("--format", default="auto", choices=FORMATS)
    c.add_argument("--new-palace", action="store_true",
                   help="make --db a new palace even if it is an existing empty file")
    command("verify", cmd_verify, "re-hash every stored row and report mismatches")
    command("exchanges", cmd_exchanges, "list exchanges in conversation order")
    c = command("cards", cmd_cards, "list distilled cards of one distiller version")
    c.add_argument("--distiller", help="distiller version (default: the latest)")
    _add_distill(command)
    c = command("budget", cmd_budget, "token budgets of the verbatim and distilled layers")
    c.add_argument("--distiller", help="distiller version (default: the latest)")
    c.add_argument("--encoding", default="cl100k_base", choices=["cl100k_base", "o200k_base"])
    from palace_lab.cli.search import add_search_commands

    add_search_commands(command)
    from palace_lab.cli.agent import add_agent_commands

    add_agent_commands(command)
    from palace_lab.cli.report import add_report_command

    add_report_command(command)
    c = command("app", cmd_app, "start the Streamlit lab on 127.0.0.1", json_=False)
    c.add_argument("--port", type=int, default=8501)
    c.add_argument("--headless", action="store_true", help="do not open a browser")
    return p


def _add_distill(command) -> None:
    c = command("distill", cmd_distill, "distill pending exchanges into cards")
    c.add_argument("--distiller", default="rules",
                   help="backend: rules (default), anthropic or openai-compat")
    c.add_argument("--model", help="model for the anthropic or openai-compat backend")
    c.add_argument("--max-cost", type=float, help="hard cost cap in USD (LLM backends)")
    c.add_argument("--base-url", help="openai-compat: the server, e.g. http://127.0.0.1:11434/v1")
    c.add_argument("--api-key-env", metavar="VAR", help="openai-compat: environment variable "
                   "holding the server's key (default: no key is sent)")
    c.add_argument("--concurrency", type=int, help="LLM backends: requests at once")
    c.add_argument("--timeout", type=float, help="LLM backends: seconds per answer")
    c.add_argument("--prices", metavar="FILE", help="LLM backends: a JSON file of USD per Mtok, "
                   '{"MODEL": {"input": ..., "output": ...}} (openai-compat costs 0 without)')
    c.add_argument("--limit", type=int, help="distill at most N pending exchanges")
    c.add_argument("--yes", action="store_true", help="confirm a paid run's cost estimate")


def main(argv: list[str] | None = None) -> int:
    from palace_lab.settings import offline

    offline()
    args = build_parser().parse_args(argv)
    try:
        args.fn(args)
    except PalaceError as exc:
        print(f"palace-lab: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("palace-lab: interrupted; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the person's files and folders: missing, unreadable, a directory
        where = f": {exc.filename}" if exc.filename else ""
        print(f"palace-lab: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # the edge: one line, never a traceback
        if os.environ.get("PALACE_LAB_DEBUG"):
            raise
        print(f"palace-lab: unexpected error: {type(exc).__name__}: {exc}"
              " (PALACE_LAB_DEBUG=1 shows the traceback)", file=sys.stderr)
        return EXIT_UNEXPECTED
    return 0


if __name__ == "__main__":
    sys.exit(main())
