"""Files: the paths an exchange touched, and the one way palace_lab writes a file.

:func:`write_atomic` writes every file a reader may open meanwhile (caches, preferences,
reports, models): to a temporary file beside the target, then renamed over it, so a reader sees
the old file or the new one, never half of one.

``files_touched``: file paths found in an exchange by regular expression, never by a model.

Backtick spans are read first (agents quote paths there), then the whole text. A candidate is
kept when it ends in a known source/config extension or is a well-known extension-less file
(Makefile, Dockerfile…). Paths are normalised: ``./`` and ``a/``/``b/`` diff prefixes dropped,
``:line[:col]`` suffixes dropped, an absolute path under the project's working directory made
relative to it, backslashes turned into slashes. Order is first appearance; no duplicates.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable
from pathlib import Path

EXTENSIONS = frozenset(
    """
    py pyi pyx ipynb rs go c h cc cpp cxx hpp hh m mm java kt kts scala groovy gradle clj cljs
    ex exs erl hrl hs ml mli fs fsx cs vb swift dart lua r jl pl pm rb php js mjs cjs jsx ts
    tsx vue svelte astro css scss sass less html htm xml xsl svg json jsonl json5 yaml yml toml
    ini cfg conf env properties lock sql prisma graphql gql proto thrift avsc md mdx rst txt
    adoc tex csv tsv sh bash zsh fish ps1 bat cmd tf tfvars hcl nix dockerfile mk cmake bzl
    bazel cabal sbt pom el vim zig nim v sol wasm wat log diff patch pem crt ini editorconfig
    gitignore dockerignore npmrc nvmrc
    """.split()
)
BARE_NAMES = frozenset(
    "Makefile Dockerfile Containerfile Procfile Gemfile Rakefile Justfile Vagrantfile "
    "CMakeLists.txt LICENSE README CHANGELOG CODEOWNERS".split()
)

_BARE_STARTS = tuple(BARE_NAMES) + ("Dockerfile",)
_BACKTICK = re.compile(r"`([^`\n]{2,200})`")
_PATH = re.compile(
    r"(?<![\w@/.\-~])"  # not glued to a preceding word, URL or path
    r"((?:~|\.{1,2})?/?(?:[\w.@+\-]+/)*[\w@+\-][\w.@+\-]*)"
    r"(?::\d+(?::\d+)?)?"
)
_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://\S+", re.I)


DOTFILES = frozenset(
    "gitignore gitattributes dockerignore editorconfig npmrc nvmrc prettierrc eslintrc "
    "babelrc bashrc zshrc profile envrc pre-commit-config.yaml python-version tool-versions "
    "aider.chat.history.md".split()
)


def _is_file_like(candidate: str) -> bool:
    name = candidate.rsplit("/", 1)[-1]
    if name in BARE_NAMES or name.startswith(("Dockerfile", ".env")):
        return True
    if name.startswith("."):
        return name[1:] in DOTFILES  # ".ts" alone is an extension, not a file
    if not (name[0].isalnum() or name[0] == "_"):
        return False
    if "." not in name:
        return False
    stem, ext = name.rsplit(".", 1)
    if ext.isdigit() or (stem.replace(".", "").isdigit()):
        return False  # version numbers such as 3.11 or 1.0.2
    return ext.lower() in EXTENSIONS


_LINE_SUFFIX = re.compile(r":\d+(?::\d+)?$")


def normalise_path(path: str, cwd: str | None = None) -> str:
    p = path.replace("\\", "/").strip().strip("'\"()[]{}<>,;")
    p = _LINE_SUFFIX.sub("", p)
    if cwd:
        root = cwd.rstrip("/") + "/"
        if p.startswith(root):
            p = p[len(root):]
    if p.startswith(("a/", "b/")) and p.count("/") > 1:
        p = p[2:]
    while p.startswith("./"):
        p = p[2:]
    return p.rstrip(".")


def _candidates(text: str):
    for span in _BACKTICK.findall(text):
        yield from _PATH.findall(span)
    yield from _PATH.findall(_URL.sub(" ", text))


def files_touched(text: str, cwd: str | None = None, limit: int = 50) -> tuple[str, ...]:
    """Normalised file paths mentioned in ``text``, in order of first appearance."""
    seen: dict[str, None] = {}
    for raw in _candidates(text):
        # Most candidates are plain words: without a dot only a few bare names can be files.
        if "." not in raw and not raw.rsplit("/", 1)[-1].startswith(_BARE_STARTS):
            continue
        path = normalise_path(raw, cwd)
        if len(path) < 3 or not _is_file_like(path) or path in seen:
            continue
        seen[path] = None
        if len(seen) >= limit:
            break
    return tuple(seen)


def write_atomic(path: str | Path, data: str | bytes | Callable[[Path], object], *,
                 encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` atomically and return ``path``.

    ``data`` is text, bytes, or a function that writes the file it is given (``np.save``,
    ``onnx.save``). The temporary file lies in the target's folder (one file system, so
    ``os.replace`` is atomic), hidden, named uniquely (two writers never share it) and ending
    in ``.tmp`` (a glob for the target's kind never meets it). The folder is made if missing;
    a failure removes the temporary file and leaves ``path`` as it was. Two writers of the same
    path: the last rename wins, whole. No fsync: these files can all be made again.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        if isinstance(data, str):
            tmp.write_text(data, encoding=encoding)
        elif isinstance(data, bytes):
            tmp.write_bytes(data)
        else:
            data(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
