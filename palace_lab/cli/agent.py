"""The agent commands of ``palace-lab``: mcp, hook session-start, watch (see palace_lab.agent)."""

from __future__ import annotations

import sys

from palace_lab.cli.common import EMBEDDER_HELP, _db, _emit, _palace
from palace_lab.settings import DEFAULT_EMBEDDER


def cmd_mcp(args) -> None:
    from palace_lab.agent.mcp_server import serve

    serve(_db(args), distiller=args.distiller, embedder=args.embedder, http_port=args.http,
          warm=not args.no_warm)


def cmd_hook_session_start(args) -> None:
    from pathlib import Path

    from palace_lab.agent.hook import run, run_prime

    log = Path(args.log).expanduser() if args.log else None
    if args.prime:
        run_prime(_db(args, required=False), args.prime, args.budget, log)
        return
    try:
        stdin_text = sys.stdin.read()
    except Exception:  # noqa: BLE001 - an unreadable stdin is an empty event
        stdin_text = ""
    out = run(stdin_text, _db(args, required=False), budget=args.budget, timeout=args.timeout,
              as_json=args.json, log_path=log)
    if out:
        sys.stdout.write(out + "\n")
    sys.stdout.flush()


def cmd_watch(args) -> None:
    import signal

    from palace_lab.agent.watch import Watcher

    with _palace(args, create=True) as palace:
        watcher = Watcher(palace, args.paths, distiller=args.distiller, embedder=args.embedder,
                          mode=args.mode, warm=not args.no_index)
        stop = lambda *_: watcher.stop.set()  # noqa: E731
        previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            passes = watcher.run(once=args.once, debounce_ms=args.debounce)
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
    doc = {"passes": len(passes), "last": passes[-1].to_dict() if passes else None,
           "stopped": watcher.stop.is_set(),
           "totals": {k: sum(getattr(p, k) for p in passes)
                      for k in ("ingested", "new_exchanges", "distilled", "vanished", "shrunk")}}
    _emit(args, doc, f"watch: {doc['passes']} passes, {doc['totals']}")


def add_agent_commands(command) -> None:
    """Register mcp, hook and watch on the main parser."""
    c = command("mcp", cmd_mcp, "serve the palace to agents as MCP tools over stdio (read-only)",
                json_=False)
    c.add_argument("--http", type=int, metavar="PORT",
                   help="serve streamable HTTP on 127.0.0.1:PORT instead of stdio")
    c.add_argument("--distiller", help="distiller version of the cards (default: latest)")
    c.add_argument("--embedder", default=DEFAULT_EMBEDDER, help=EMBEDDER_HELP)
    c.add_argument("--no-warm", action="store_true", help="do not load indexes at start")

    c = command("hook", None, "agent hooks (Claude Code)", db=False, json_=False)
    hooks = c.add_subparsers(dest="hook", required=True, parser_class=type(c))
    h = hooks.add_parser("session-start", help="SessionStart: print a memory pack of the project",
                         description="Reads the hook JSON on stdin; prints a memory pack of the "
                         "cwd's project within the budget, or nothing (never blocks).")
    h.add_argument("--db", help="palace file (default: $PALACE_LAB_DB)")
    h.add_argument("--budget", type=int, default=2000, help="token budget (default 2000)")
    h.add_argument("--timeout", type=float, default=2.0, help="seconds before giving up (2)")
    h.add_argument("--json", action="store_true", help="print hookSpecificOutput JSON")
    h.add_argument("--log", help="log file (default: hook.log in the palace_lab cache folder)")
    h.add_argument("--prime", metavar="PROJECT",
                   help="build and cache PROJECT's pack now, print nothing (what a slow or "
                   "stale start runs in the background)")
    h.set_defaults(fn=cmd_hook_session_start)

    c = command("watch", cmd_watch, "follow history folders: ingest, distill and index new work")
    c.add_argument("paths", nargs="+", metavar="PATH")
    c.add_argument("--once", action="store_true", help="one pass over the paths, then exit")
    c.add_argument("--debounce", type=int, default=1500, help="milliseconds (default 1500)")
    c.add_argument("--distiller", default="rules", help="distiller backend (default: rules)")
    c.add_argument("--embedder", default=DEFAULT_EMBEDDER, help=EMBEDDER_HELP)
    c.add_argument("--mode", help="search mode whose indexes to keep warm (default: the default)")
    c.add_argument("--no-index", action="store_true", help="ingest and distill only")
