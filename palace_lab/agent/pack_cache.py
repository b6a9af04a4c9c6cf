"""The session-start hook's cache of memory packs: fast starts, refreshed in the background.

Building a project's pack reads and ranks every card of the project (a second or two at 15k
exchanges), longer than a session start may wait. So the hook keeps the last pack of each
(palace, project, budget) in a small JSON file with the palace *content key* it was built from
(the exchange and card fingerprints):

- same content key: the cached pack is current; print it;
- another content key (the palace grew since): print the cached pack anyway (memory of past
  work an hour old is still right) and refresh it in a detached process for the next start;
- no cached pack and the build is too slow: print nothing; the detached process primes it.

A refresh is ``palace-lab hook session-start --prime PROJECT``: no time limit, no output, its
outcome logged like every hook run. A lock file (ignored after :data:`LOCK_SECONDS`) keeps one
refresh per pack at a time. Files are written to a temporary name, then renamed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.files import write_atomic

if TYPE_CHECKING:
    from palace_lab.store import Palace

LOCK_SECONDS = 300
MAX_CACHED = 64


@dataclass(frozen=True)
class CachedPack:
    content: str
    text: str
    tokens: int
    items: tuple[str, ...]


def folder() -> Path:
    from palace_lab.settings import cache_dir

    return cache_dir() / "hook"


def pack_file(db: str | Path, project: str, budget: int) -> Path:
    from palace_lab.model import content_hash

    key = content_hash(str(Path(db).expanduser().resolve()), project, str(budget))
    return folder() / f"{key[:20]}.json"


def content_key(palace: Palace) -> str:
    """Changes whenever an exchange or a card of the newest distiller changes."""
    from palace_lab.index.cache import cards_fingerprint
    from palace_lab.model import content_hash

    return content_hash(palace.fingerprint(),
                        cards_fingerprint(palace, palace.latest_distiller() or ""))


def read(path: Path) -> CachedPack | None:
    try:
        held = json.loads(path.read_text("utf-8"))
        return CachedPack(held["content"], held["text"], int(held["tokens"]),
                          tuple(held["items"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write(path: Path, pack: CachedPack) -> None:
    write_atomic(path, json.dumps({"content": pack.content, "text": pack.text,
                                   "tokens": pack.tokens, "items": list(pack.items)}))
    held = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in held[MAX_CACHED:]:
        old.unlink(missing_ok=True)


def _lock(path: Path, now=time.time) -> Path | None:
    """The lock file of ``path``'s refresh, taken; None while another refresh holds it. A lock
    older than :data:`LOCK_SECONDS` by the clock ``now`` is a refresh that died: broken."""
    lock = path.with_suffix(".lock")
    try:
        if now() - lock.stat().st_mtime > LOCK_SECONDS:
            lock.unlink(missing_ok=True)  # a refresh that died long ago
    except FileNotFoundError:
        pass
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return None
    return lock


def release(db: str | Path, project: str, budget: int) -> None:
    pack_file(db, project, budget).with_suffix(".lock").unlink(missing_ok=True)


def refresh_in_background(db: str | Path, project: str, budget: int, log: Path | None) -> bool:
    """Start a detached ``--prime`` process for this pack unless one is running already."""
    if _lock(pack_file(db, project, budget)) is None:
        return False
    argv = [sys.executable, "-m", "palace_lab.cli", "hook", "session-start", "--db", str(db),
            "--budget", str(budget), "--prime", project]
    if log is not None:
        argv += ["--log", str(log)]
    try:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    except OSError:
        release(db, project, budget)
        return False
    return True
