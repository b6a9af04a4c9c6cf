"""Running a command as an unprivileged user, to test file modes (root reads every file)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest


def as_nobody() -> list[str]:
    """A command prefix that drops root (root reads and writes every file, whatever its
    mode), or skip."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: read-only files cannot be tested")
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run([*prefix, sys.executable, "-c", "import palace_lab"],
                      capture_output=True).returncode:
        pytest.skip("an unprivileged user cannot read this checkout (it lies under a private "
                    "folder such as mktemp -d's): file modes cannot be tested as nobody")
    return prefix
