"""The repository's documents stand on their own: no file points at a document outside it, and
every relative link of the README and of ``docs/`` reaches a file (and a heading) inside it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Documents of the workspace the project grew in, which a clone does not carry: their content
# now lives in docs/ (architecture.md, paper.md, formats.md). Spelled in pieces so that this
# file does not name them itself.
OUTSIDE = re.compile(r"\b(?:DESIGN|PAPER|ENVIRONMENT|STYLE|FORMATS)\.md\b"
                     r"|\.\./" r"shared/[\w./-]*\.md\b")
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".palace", "test-output"}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def repository_files() -> list[Path]:
    """The tracked files (``git ls-files``), or every file outside caches where git is absent."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode()
        return [ROOT / name for name in out.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in ROOT.rglob("*")
                if p.is_file() and not SKIP_DIRS & set(p.relative_to(ROOT).parts)]


def test_no_file_points_at_a_document_outside_the_repository():
    offenders = []
    for path in repository_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary files (screenshots, zips) name no document
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert offenders == []


def test_the_pattern_finds_what_it_should():
    assert OUTSIDE.search("see " + "DESIGN" + ".md") and OUTSIDE.search("../" + "shared/" + "PAPER" + ".md")
    assert not OUTSIDE.search("docs/paper.md, the data in ../shared/benchmarks")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def outside_code(text: str) -> list[str]:
    """The lines of a Markdown text that are not inside a fenced code block."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(path: Path) -> set[str]:
    """Every heading's anchor; a repeated heading gets ``-1``, ``-2``… as on GitHub."""
    found: set[str] = set()
    for line in outside_code(path.read_text()):
        if m := re.match(r"#{1,6}\s+(.*)", line):
            base, n = slug(m.group(1)), 0
            while (name := base if n == 0 else f"{base}-{n}") in found:
                n += 1
            found.add(name)
    return found


def markdown_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for line in outside_code(page.read_text()):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            if not dest.exists():
                broken.append(f"{target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert broken == []


def test_slugs_follow_github():
    assert slug("At 50,000 and 100,000 exchanges") == "at-50000-and-100000-exchanges"
    assert slug("Gemini CLI (`gemini-cli`)") == "gemini-cli-gemini-cli"


def test_readme_is_a_front_door():
    """The README stays short; the lab notebook lives in docs/."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 260
    assert readme.splitlines()[3].startswith("./lab app") and readme.splitlines()[4].startswith("./lab test")
