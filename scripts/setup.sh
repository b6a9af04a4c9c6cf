#!/usr/bin/env bash
# Idempotent setup of a fresh machine: virtualenv, Python packages, and (with --tests) the
# Debian Chromium the browser tests drive. Safe to run again: each step checks before it acts.
set -euo pipefail
cd "$(dirname "$0")/.."

# --tests: also the test tier's extras (ranx cross-check) and Debian Chromium for the browser tests
want_tests=0
[ "${1:-}" = "--tests" ] && want_tests=1
extras="dev"
[ "$want_tests" = 1 ] && extras="dev,crosscheck"

py=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv" >&2
  "$py" -m venv .venv
fi
pip=(.venv/bin/python -m pip --disable-pip-version-check -q)

# torch first, pinned: a bare or open-ended torch requirement pulls a CUDA build of several GB;
# 2.13.0 is the CPU build these machines serve (see docs/architecture.md).
if ! .venv/bin/python -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '2.13.0')" 2>/dev/null; then
  echo "setup: installing torch 2.13.0 (CPU)" >&2
  "${pip[@]}" install "torch==2.13.0"
fi

stamp=.venv/.palace_lab_installed
digest="$(sha1sum pyproject.toml | cut -d' ' -f1) $extras"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$digest" ]; then
  echo "setup: installing palace_lab and its dependencies" >&2
  "${pip[@]}" install -e ".[$extras]"
  echo "$digest" > "$stamp"
fi

if [ "$want_tests" = 1 ] && [ ! -x /usr/bin/chromium ]; then
  echo "setup: installing Debian chromium for the browser tests" >&2
  sudo_=""
  [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
fi
