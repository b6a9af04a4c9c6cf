"""What every command shares: the palace it opens, how it prints (``--json``: exactly one JSON
document on stdout), progress on stderr, the exit codes. Imported by :mod:`~palace_lab.cli.main`
and each command module, never the other way round. What the person gets wrong arrives here as
a :class:`~palace_lab.errors.PalaceError` raised where it is found (validation raises
:class:`~palace_lab.errors.InputError`), so no command catches piecemeal."""

from __future__ import annotations

import json
import os
import sys

from palace_lab.errors import PalaceError

# The names of palace_lab.index.embed.EMBEDDERS (not imported: --help stays free of numpy)
EMBEDDER_HELP = ("minilm-int8 (default: MiniLM, int8 weights in ONNX Runtime), minilm (MiniLM, "
                 "float, PyTorch), minilm-int8-128, minilm-static (distilled, fast) or fake (tests)")

EXIT_ERROR, EXIT_UNEXPECTED, EXIT_INTERRUPTED = 1, 2, 130


def _emit(args, data, text: str | None = None) -> None:
    if args.json:
        text = json.dumps(data, ensure_ascii=False, indent=1, default=str)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from some source: \u escapes keep it
            text = json.dumps(data, ensure_ascii=True, indent=1, default=str)
        sys.stdout.write(text + "\n")
    else:
        print(text if text is not None else json.dumps(data, indent=1, default=str))


def _progress(desc: str, total: int | None = None):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False,
                disable=not sys.stderr.isatty() or os.environ.get("PALACE_LAB_NO_PROGRESS") == "1")


def _db(args, *, required: bool = True):
    """The palace file of ``--db``, else ``$PALACE_LAB_DB``; without either, one clear error
    (or None when not ``required``: a hook that finds no palace prints nothing)."""
    from palace_lab.settings import Settings

    db = Settings.from_env(db=getattr(args, "db", None)).db
    if db is None and required:
        raise PalaceError("no palace file: pass --db PATH or set PALACE_LAB_DB")
    return db


def _palace(args, create: bool = False):
    from palace_lab.store import Palace

    palace = Palace.open(_db(args), create=create, adopt_empty=getattr(args, "new_palace", False))
    palace.on_wait = _tell_waiting
    return palace


def _tell_waiting(path) -> None:
    print(f"palace-lab: another process is writing to {path}; waiting for it…", file=sys.stderr)
