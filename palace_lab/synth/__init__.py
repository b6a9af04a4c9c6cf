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
import math
import random
import re
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from palace_lab.model import exchange_id_for

SESSIONS_DIR = "claude_code"
START = datetime(2025, 9, 1, 8, 0, tzinfo=timezone.utc)
SPAN_DAYS = 182
MEAN_SESSION_EXCHANGES = 14340 / 4182
PROJECT_WEIGHTS = (0.29, 0.22, 0.17, 0.13, 0.11, 0.08)
VERSIONS = ("2.0.14", "2.0.27", "2.0.42", "2.0.55", "2.0.76", "2.1.3", "2.1.17", "2.1.31",
            "2.1.42")  # Claude Code releases over the six months, in order
QUERY_TYPES = ("exact_term", "file_path", "conceptual", "error", "mixed")
# Text written per exchange (log-normal plus a heavier 1% tail). With the role labels and
# spacing the verbatim layer adds, seed 0 measures: mean 1,398 characters, 375 cl100k tokens
# (the paper: 371), median 817, p99 6.6k, max 60k.
MEAN_TEXT_CHARS = 830
SIGMA = 0.9
HEAVY_TAIL = 0.01  # this share of exchanges is 4-15 times longer still


# -- what is said: projects, vocabulary, templates ---------------------------------------------


@dataclass(frozen=True)
class ProjectSpec:
    name: str
    language: str
    nouns: tuple[str, ...]


PROJECTS = (
    ProjectSpec("tallybook", "python", tuple("ledger batch invoice account posting journal "
                                              "currency statement balance export period".split())),
    ProjectSpec("quillmark", "typescript", tuple("editor document cursor selection toolbar "
                                                 "plugin markdown block comment shortcut".split())),
    ProjectSpec("buoyline", "go", tuple("sensor buoy tide reading station alert gauge "
                                         "telemetry sample threshold feed".split())),
    ProjectSpec("orbitcache", "rust", tuple("shard entry eviction segment replica lease slab "
                                            "bucket snapshot compaction".split())),
    ProjectSpec("fernsync", "python", tuple("folder upload chunk manifest peer conflict "
                                            "checksum watcher quota device revision".split())),
    ProjectSpec("brickyard", "typescript", tuple("pipeline artifact runner job workspace target "
                                                 "graph step worker trigger".split())),
)

VERBS = tuple("load parse flush resolve merge validate fetch build render sync encode decode "
              "schedule normalize compact split apply emit collect prune".split())
ATTRS = tuple("id count offset limit ts size status key version owner".split())
QUALS = tuple("window strict lazy batched cached safe partial once v2 async bulk inline fast "
              "legacy dry_run".split())
SUFFIXES = tuple("Writer Reader Store Client Manager Resolver Queue Worker Config Handler "
                 "Planner Index".split())
KNOBS = tuple("TIMEOUT_MS MAX_RETRIES BATCH_SIZE POOL_SIZE TTL_SECONDS WORKERS LOG_LEVEL "
              "BUFFER_KB".split())
LOCALS = tuple("item entry result rows cfg ctx payload resp batch key opts state".split())
ROUND_NUMBERS = (10, 16, 32, 64, 100, 128, 250, 500, 1000, 2048, 4096, 5000, 30000)
SMALL_NUMBERS = {"k": (2, 240), "line": (12, 900), "col": (1, 80), "ms": (10, 99),
                 "mm": (1, 12), "dd": (1, 28), "hh": (0, 23), "mi": (0, 59), "ss": (0, 59)}

# (the words an exchange uses, the words a person recalling it might use instead)
CONCEPTS = (
    ("retry with exponential backoff", "trying again after failures with growing waits"),
    ("connection pool exhaustion", "running out of database connections under load"),
    ("cursor-based pagination", "splitting long result lists into pages"),
    ("cache invalidation", "stale data served after an update"),
    ("rate limiting", "throttling clients that send too many calls"),
    ("schema migration", "changing the tables without losing rows"),
    ("structured logging", "machine-readable log lines with context fields"),
    ("token refresh", "keeping the login alive when credentials expire"),
    ("timezone-aware timestamps", "dates shifting by hours between regions"),
    ("memory leak", "the process growing in RAM until it gets killed"),
    ("race condition", "two workers stepping on each other at the same moment"),
    ("JSON serialization", "turning objects into wire format and back"),
    ("command-line flags", "options passed on the terminal"),
    ("flaky test", "a check that passes or fails at random"),
    ("dependency upgrade", "moving to a newer version of a library"),
    ("CI pipeline", "the automated build that runs on every push"),
    ("input validation", "rejecting malformed data before it is used"),
    ("write batching", "grouping many small writes into fewer large ones"),
    ("worker concurrency limit", "how many jobs run in parallel at once"),
    ("idempotent retries", "making a repeated request safe to apply twice"),
    ("streaming parser", "reading a big input piece by piece instead of all at once"),
    ("config precedence", "which settings source wins when several disagree"),
    ("error wrapping", "keeping the original cause when reporting a failure"),
    ("latency metrics", "measuring how long each call takes"),
    ("graceful shutdown", "stopping cleanly without dropping in-flight work"),
    ("UTF-8 decoding", "garbled characters from non-English text"),
    ("file locking", "two processes writing the same file"),
    ("fuzzy matching", "finding items despite typos"),
    ("deduplication", "the same record showing up twice"),
    ("permission checks", "users seeing things they should not"),
)
KINDS = {"fix": "fixed", "feature": "added", "refactor": "reworked", "test": "tested",
         "explain": "looked into", "perf": "sped up", "config": "made configurable"}

REQUESTS = {
    "fix": (
        "The {subject} {aspect} is failing with `{err}` when I run `{cmd}`. Can you look at "
        "`{ident}` in {path} and fix the {concept}?",
        "{err}\n\nthis started after the last change to {path}. something in `{ident}` around "
        "the {concept}, please fix",
        "Getting `{err}` again from the {subject} {aspect}. I think the {concept} in `{ident}` "
        "is wrong. Fix it and add a regression test."),
    "feature": (
        "Add {concept} to the {subject} {aspect}. Put it in a new module {newpath}, expose it "
        "as `{ident}`, and call it from `{fn}`. Default `{CONF}` to {num}.",
        "I want `{ident}` to support {concept} for each {subject}. New code goes in {newpath}; "
        "keep {path} unchanged if you can."),
    "refactor": (
        "Refactor `{fn}` in {path}: move the {concept} logic for the {subject} {aspect} into "
        "`{ident}` in {newpath}. No behaviour change.",
        "`{fn}` has grown to {num} lines. Split the {concept} part out into `{ident}` "
        "({newpath}) and keep `{cls}` as the entry point."),
    "test": (
        "Write tests for `{ident}` covering {concept} when `{field}` is {num}. Use the fixtures "
        "in {testpath}.",
        "We have no coverage for the {subject} {aspect} {concept}. Add tests around `{ident}`, "
        "including `{field}` = {num}."),
    "explain": (
        "How does {concept} work for the {subject} {aspect}? Walk me through `{ident}` and "
        "{path}.",
        "I don't understand why `{ident}` needs the {concept}. What breaks if `{field}` is "
        "{num}?"),
    "perf": (
        "`{ident}` takes {num} ms per {subject} {aspect} on the staging data. Profile it and "
        "speed up the {concept}.",
        "The {subject} {aspect} got slow after the {concept} change, around {num} ms per call "
        "in `{ident}`. Find out why."),
    "config": (
        "Make `{CONF}` configurable (hard-coded to {num} in {path}) and document how it "
        "affects the {concept}; read it in `{ident}`.",
        "Expose the {concept} setting for {subject}s as `{CONF}` (default {num}) and use it in "
        "`{ident}`."),
}
FOLLOW_UPS = {  # a later request in the same session, by the kind of work it asks for
    "fix": "that worked, but now `{cmd}` fails with `{err}`. `{ident}` looks involved",
    "refactor": "ok. now do the same {concept} change for the {aspect} side in {newpath}, call "
                "it `{ident}`",
    "test": "can you also handle `{field}` = {num} in `{ident}`? it should be rejected",
    "feature": "one more thing: `{ident}` should log the {subject} id when the {concept} kicks in",
}
OPENINGS = (
    "I'll start by reading {path} to see how `{fn}` handles the {concept}.",
    "Let me look at the {subject} {aspect} code first.",
    "Let me reproduce the failure before changing anything.",
    "I'll check where `{fn}` is called and how `{CONF}` is read.",
)
NOTES = (
    "The problem is in `{fn}`: it never resets `{field}` after a {concept} failure, so the "
    "{aspect} keeps a stale value.",
    "`{cls}` is built once per {subject}, which explains most of the {num} ms.",
    "{path} calls `{fn2}` before the {concept} is set up, so `{field}` is still empty there.",
    "Tests still fail on the {aspect} case; checking the fixture next.",
    "That matches the traceback: `{fn}` is reached with `{field}` = {num}.",
    "There are two callers of `{fn}`; only the {subject} one goes through `{cls}`.",
    "`{CONF}` is read at import time, so changing it in the test has no effect.",
)
FINALS = (
    "Done. `{ident}` now lives in {newpath} and handles the {concept} for the {subject} "
    "{aspect}; `{cmd}` passes ({k} passed). `{CONF}` defaults to {num}.",
    "Summary:\n- moved the {concept} into `{ident}` ({newpath})\n- `{fn}` now delegates to it\n"
    "- added tests in {testpath}\nAll {k} tests pass.",
    "Fixed: the {concept} in `{ident}` no longer trips over `{field}`. The regression test in "
    "{testpath} reproduces the original error and now passes.",
)
ANSWERS = (
    "`{ident}` is called from `{fn}` for every {subject} {aspect}. It applies the {concept} "
    "before `{cls}` writes anything, and `{CONF}` ({num} by default) bounds it.",
    "Short version: without the {concept}, `{fn}` would see `{field}` = {num} and the {aspect} "
    "would be written twice. `{ident}` guards against that.",
)
THINKING = ("The user wants the {concept} handled in the {subject} {aspect}. Read {path}, "
            "then `{fn}`.")
LOG_LINE = ("2025-{mm}-{dd}T{hh}:{mi}:{ss}Z {level} {subject} {aspect} {fn} took {ms}ms "
            "{field}={k}")


@dataclass(frozen=True)
class _Lang:
    ext: str
    camel: bool
    paths: tuple[str, ...]  # common files; {p} project, {n}/{n2} nouns
    new_path: str  # a file an exchange creates
    test_path: str
    test_cmd: str
    code: tuple[str, ...]
    errors: tuple[str, ...]  # {uid} makes each minted error unique
    fail: str
    ok: str


LANGS = {
    "python": _Lang(
        "py", False, ("src/{p}/{n}/{n2}.py", "src/{p}/{n}.py", "src/{p}/{n}/__init__.py",
                      "pyproject.toml", "Makefile", "README.md"),
        "src/{p}/{n2}/{s}_{q}.py", "tests/test_{s}_{n}.py", "pytest -q {testpath}",
        ("def {fn}({a}, {b}=None):", "    {a} = {cls}.from_{n}({b})", "    if {a}.{field} is None:",
         "        raise ValueError(f\"{n} {{{a}.{field}}} not found\")",
         "    for {a} in self.{n}s:", "    return {fn2}({a}, {field}={num})",
         "    logger.debug(\"{fn} %s\", {a}.{field})", "class {cls}:",
         "    {CONF} = int(os.environ.get(\"{CONF}\", \"{num}\"))", ""),
        ("ValueError: {s} {uid} has no {field} (expected one of {k} values)",
         "AssertionError: expected {k} {s}s after {fn}, got {uid}",
         "TimeoutError: {cls} did not respond within {uid} ms",
         "KeyError: '{s}_{uid}'",
         "sqlite3.OperationalError: database is locked ({uid} ms in {fn})"),
        "============================= test session starts ==============================\n"
        "collected {k} items\n\n{testpath} ..F.\n\n=================================== FAILURES "
        "===================================\n____ test_{ident} ____\n\n    {code}\nE   {err}\n\n"
        "{path}:{line}: {errtype}\n=========================== short test summary info "
        "============================\nFAILED {testpath}::test_{ident} - {err}\n"
        "========================= 1 failed, {k2} passed in 0.{ms}s =========================",
        "{k} passed in 0.{ms}s"),
    "typescript": _Lang(
        "ts", True, ("src/{n}/{n2}.ts", "src/{n}/index.ts", "src/components/{N}{N2}.tsx",
                     "package.json", "tsconfig.json", "README.md"),
        "src/{n2}/{s}-{q}.ts", "src/{n}/{s}.test.ts", "npm test -- {testpath}",
        ("export async function {fn}({a}: {cls}, {b}?: number): Promise<{cls}> {{",
         "  const {a} = await this.{fn2}({b});",
         "  if (!{a}.{field}) throw new Error(`{n} ${{{a}.{field}}} missing`);",
         "  return {a};", "}}", "import {{ {fn} }} from './{n}';",
         "  logger.debug('{fn}', {{ {field}: {a}.{field} }});", ""),
        ("TypeError: Cannot read properties of undefined (reading '{field}') at {s} #{uid}",
         "Error: {s} {uid} not found in {cls}",
         "RangeError: {field} {uid} exceeds maximum of {k}"),
        " FAIL  {testpath}\n  ● {s} › {ident}\n\n    {err}\n\n"
        "      at {fn} ({path}:{line}:{col})\n\n"
        "Tests:       1 failed, {k2} passed, {k} total\nTime:        {k}.{ms} s",
        " PASS  {testpath}\nTests:       {k} passed, {k} total\nTime:        1.{ms} s"),
    "go": _Lang(
        "go", True, ("internal/{n}/{n2}.go", "internal/{n}/{n}.go", "cmd/{p}/main.go", "go.mod",
                     "Makefile", "README.md"),
        "internal/{n2}/{s}_{q}.go", "internal/{n}/{s}_test.go", "go test ./internal/{n}/...",
        ("func (r *{cls}) {fn}(ctx context.Context, {a} *{cls}) error {{",
         "\t{a}, err := r.{fn2}(ctx, {b})", "\tif err != nil {{",
         "\t\treturn fmt.Errorf(\"{fn}: %w\", err)", "\t}}", "\tr.{field} = {num}",
         "\tlog.Printf(\"{fn} {n}=%v\", {a})", "}}", ""),
        ("{fn}: {s} {uid}: context deadline exceeded",
         "panic: runtime error: index out of range [{uid}] with length {k}",
         "{fn}: invalid {field} {uid}: out of range"),
        "--- FAIL: Test{ident} (0.00s)\n    {path}:{line}: {err}\nFAIL\n"
        "FAIL\tgithub.com/dev/{p}/internal/{n}\t0.{ms}s",
        "ok  \tgithub.com/dev/{p}/internal/{n}\t0.{ms}s"),
    "rust": _Lang(
        "rs", False, ("src/{n}/{n2}.rs", "src/{n}/mod.rs", "src/{n}.rs", "Cargo.toml",
                      "README.md"),
        "src/{n2}/{s}_{q}.rs", "tests/{s}_{n}.rs", "cargo test {s}",
        ("pub fn {fn}(&mut self, {a}: &{cls}) -> Result<{cls}, Error> {{",
         "    let {a} = self.{fn2}({b})?;", "    if {a}.{field} > {num} {{",
         "        return Err(Error::{cls});", "    }}", "    Ok({a})", "}}",
         "    tracing::debug!({field} = {a}.{field}, \"{fn}\");", ""),
        ("called `Result::unwrap()` on an `Err` value: {cls}Error {{ {field}: {uid} }}",
         "attempt to subtract with overflow in {fn} ({s} {uid})",
         "{s} {uid} still leased by {cls} after {k} attempts"),
        "running {k} tests\ntest {s}::tests::{ident} ... FAILED\n\nfailures:\n\n---- {s}::tests::"
        "{ident} stdout ----\nthread '{s}::tests::{ident}' panicked at {path}:{line}:{col}:\n"
        "{err}\n\ntest result: FAILED. {k2} passed; 1 failed; 0 ignored",
        "running {k} tests\ntest result: ok. {k} passed; 0 failed; 0 ignored; finished in "
        "0.{ms}s"),
}


def _case(words: list[str], camel: bool) -> str:
    if not camel:
        return "_".join(words)
    return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])


def _zipf(n: int) -> list[float]:
    total, out = 0.0, []
    for i in range(n):
        total += 1.0 / (i + 1)
        out.append(total)
    return out


class _Slots(dict):
    """Template values: preset ones, and any other name drawn from the vocabulary on first use."""

    def __init__(self, vocab: "Vocab", rng: random.Random, preset: dict):
        super().__init__(preset)
        self.vocab, self.rng = vocab, rng
        self.preset = dict(preset)  # the exchange's fixed values, for prose drawn afresh

    def __missing__(self, key: str) -> str:
        value = self.vocab.pick(self.rng, key.rstrip("0123456789"))
        self[key] = value
        return value

    def draw(self, *keys: str) -> None:
        for key in keys:
            _ = self[key]  # a missing key is drawn and kept


class Vocab:
    """One project's names: common ones drawn with Zipf weights, minted ones used only once."""

    def __init__(self, spec: ProjectSpec, seed: int, taken: set[str]):
        rng = random.Random(f"{seed}:vocab:{spec.name}")
        self.name, self.nouns, self.lang = spec.name, spec.nouns, LANGS[spec.language]
        self.cwd = f"/home/dev/src/{spec.name}"
        self.folder = self.cwd.replace("/", "-")
        self.taken = taken  # shared by all projects: a minted name is unique in the corpus
        camel = self.lang.camel
        combos = [[v, n, a] for v in VERBS for n in self.nouns for a in (*self.nouns, *ATTRS)
                  if n != a]
        self.lists = {
            "fn": [_case(w, camel) for w in rng.sample(combos, 160)],
            "cls": [self._class_name(rng) for _ in range(40)],
            "field": [_case([n, a], camel) for n, a in
                      rng.sample([(n, a) for n in self.nouns for a in ATTRS], 36)],
            "CONF": [f"{spec.name.upper()}_{rng.choice(self.nouns).upper()}_{k}"
                     for k in rng.sample(KNOBS, len(KNOBS)) for _ in range(3)],
            "file": self._files(rng),
            "a": list(LOCALS), "n": list(self.nouns),
        }
        self.weights = {k: _zipf(len(v)) for k, v in self.lists.items()}
        self.calls = [line for line in self.lang.code if "{fn}" in line]  # what a grep finds

    def _class_name(self, rng: random.Random) -> str:
        words = rng.sample(self.nouns, 2 if rng.random() < 0.4 else 1)
        return "".join(w.title() for w in words) + rng.choice(SUFFIXES)

    def _files(self, rng: random.Random) -> list[str]:
        files: list[str] = []
        while len(files) < 70:
            n, n2 = rng.sample(self.nouns, 2)
            path = rng.choice(self.lang.paths).format(p=self.name, n=n, n2=n2, N=n.title(),
                                                      N2=n2.title())
            if path not in files:
                files.append(path)
        return files

    def pick(self, rng: random.Random, key: str) -> str:
        key = "a" if key == "b" else key
        if key in self.lists:
            return rng.choices(self.lists[key], cum_weights=self.weights[key])[0]
        if key == "num":
            r = rng.random()
            return str(rng.choice(ROUND_NUMBERS) if r < 0.4 else rng.randint(2, 99)
                       if r < 0.7 else rng.randint(100, 99999))
        if key in SMALL_NUMBERS:
            return f"{rng.randint(*SMALL_NUMBERS[key]):02d}"
        if key == "level":
            return rng.choice(("INFO", "INFO", "DEBUG", "WARN", "ERROR"))
        raise KeyError(f"template names {key!r}, which the vocabulary does not know")

    def _mint(self, rng: random.Random, make: Callable[[], str]) -> str:
        for _ in range(1000):
            value = make()
            if value not in self.taken:
                self.taken.add(value)
                return value
        raise RuntimeError("vocabulary exhausted; lower the number of exchanges per project")

    def mint_ident(self, rng: random.Random, subject: str) -> str:
        return self._mint(rng, lambda: _case(
            [rng.choice(VERBS), subject, rng.choice((*self.nouns, *ATTRS)), rng.choice(QUALS)],
            self.lang.camel))

    def mint_path(self, rng: random.Random, subject: str) -> str:
        sep = "-" if self.lang.ext == "ts" else "_"
        return self._mint(rng, lambda: self.lang.new_path.format(
            p=self.name, n2=rng.choice(self.nouns), s=subject,
            q=f"{rng.choice(QUALS + VERBS)}{sep}{rng.choice(ATTRS)}".replace("_", sep)))

    def mint_error(self, rng: random.Random, slots: _Slots) -> str:
        return self._mint(rng, lambda: rng.choice(self.lang.errors).format_map(
            {**slots, "uid": str(rng.randint(1000, 999999))}))

    def branch(self, rng: random.Random) -> str:
        return rng.choice(("main", "main", "main", f"fix/{rng.choice(self.nouns)}",
                           f"feat/{rng.choice(self.nouns)}-{rng.choice(QUALS)}"))


@dataclass(frozen=True)
class Tool:
    name: str
    input: dict
    result: str
    detail: object  # the record's toolUseResult
    is_error: bool = False


@dataclass(frozen=True)
class Turn:
    """One assistant response: optional thinking and text, optional tool round-trip."""

    text: str | None = None
    tool: Tool | None = None
    thinking: str | None = None


@dataclass(frozen=True)
class _Exchange:
    request: str
    turns: list[Turn]
    topic: tuple[str, str, str, str]
    facets: dict


def _numbered(lines: list[str], start: int = 1) -> str:
    return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(lines, start))


def _size(turn: Turn) -> int:
    n = len(turn.text or "")
    if turn.tool:
        n += len(turn.tool.result) + sum(len(str(v)) for v in turn.tool.input.values())
    return n


class Composer:
    """The words of one project's exchanges; how Claude Code writes them down is not its job."""

    def __init__(self, vocab: Vocab):
        self.vocab = vocab
        self.chars = 0
        self.mu = math.log(MEAN_TEXT_CHARS) - SIGMA * SIGMA / 2

    def theme(self, rng: random.Random) -> dict:
        """What one session is about; its exchanges mostly stay on it."""
        v = self.vocab
        subject, aspect = rng.sample(v.nouns, 2)
        return {"concept": rng.randrange(len(CONCEPTS)), "subject": subject, "aspect": aspect,
                "kind": rng.choice(tuple(KINDS)), "path": v.pick(rng, "file"),
                "fn": v.pick(rng, "fn"), "cls": v.pick(rng, "cls"), "CONF": v.pick(rng, "CONF")}

    def _slots(self, rng: random.Random, theme: dict, kind: str) -> _Slots:
        v, lang = self.vocab, self.vocab.lang
        concept = theme["concept"] if rng.random() < 0.7 else rng.randrange(len(CONCEPTS))
        subject = theme["subject"]
        aspect = theme["aspect"] if rng.random() < 0.6 else rng.choice(v.nouns)
        preset = {**theme, "concept": CONCEPTS[concept][0], "paraphrase": CONCEPTS[concept][1],
                  "aspect": aspect, "s": subject, "p": v.name,
                  "kind": kind,
                  "ident": v.mint_ident(rng, subject), "newpath": v.mint_path(rng, subject),
                  "testpath": lang.test_path.format(s=subject, n=aspect)}
        slots = _Slots(v, rng, preset)
        slots["cmd"] = lang.test_cmd.format_map(slots)
        slots.draw("field", "k", "k2", "num", "line")  # now, so the error and request agree
        slots["err"] = v.mint_error(rng, slots)
        slots["errtype"] = slots["err"].split(":", 1)[0]
        slots["code"] = rng.choice(lang.code).format_map(slots)
        slots.preset = dict(slots)
        return slots

    def exchange(self, rng: random.Random, theme: dict, *, follow_up: bool) -> _Exchange:
        short = follow_up and rng.random() < 0.5
        kind = rng.choice(tuple(FOLLOW_UPS if short else KINDS)) if follow_up else theme["kind"]
        template = FOLLOW_UPS[kind] if short else rng.choice(REQUESTS[kind])
        slots = self._slots(rng, theme, kind)
        request = template.format_map(slots)
        if rng.random() < 0.12:  # a pasted log or listing: part of the long tail
            request += "\n\n```\n" + self._log_lines(rng, slots, rng.randint(3, 40)) + "\n```"
        target = rng.lognormvariate(self.mu, SIGMA)
        if rng.random() < HEAVY_TAIL:  # the odd exchange with a huge output or a long session
            target *= rng.uniform(4, 15)
        target = min(int(target), 60000)
        turns, used = self._turns(rng, slots, target - len(request), "{err}" in template)
        self.chars += len(request) + sum(_size(t) for t in turns)
        facets = {"ident": slots["ident"], "paraphrase": slots["paraphrase"],
                  "kind_phrase": KINDS[slots["kind"]]}
        if "path" in used or "{newpath}" in template:
            facets["path"] = slots["newpath"]
        if "error" in used or "{err}" in template:
            facets["error"] = slots["err"]
        if "{num}" in template:
            facets["num"] = slots["num"]
        topic = (slots["concept"], slots["s"], slots["aspect"], slots["kind"])
        return _Exchange(request, turns, topic, facets)

    def _turns(self, rng: random.Random, slots: _Slots, budget: int,
               error_asked: bool) -> tuple[list[Turn], set[str]]:
        """Tool round-trips sized to ``budget`` characters, ending with the change and a summary."""
        if budget < 500:
            return [Turn(text=self._prose(rng, slots, ANSWERS, budget))], set()
        used: set[str] = set()
        thinking = THINKING.format_map(slots) if rng.random() < 0.2 else None
        turns = [Turn(rng.choice(OPENINGS).format_map(slots),
                      self._read(rng, slots["path"], budget // 5), thinking)]
        wants_run = slots["kind"] in ("fix", "test", "perf") and rng.random() < 0.8
        if budget > 1200 and (error_asked or wants_run):
            turns.append(Turn(tool=self._bash(rng, slots, failing=True)))
            used.add("error")
        spent = sum(_size(t) for t in turns)
        while spent < budget - 700 and len(turns) < 60:
            turns.append(self._filler(rng, slots, budget - spent))
            spent += _size(turns[-1])
        note = rng.choice(NOTES).format_map(slots) if rng.random() < 0.5 else None
        turns.append(Turn(note, self._change(rng, slots, budget - spent)))
        used.add("path")
        if budget - spent > 900 and rng.random() < 0.7:
            turns.append(Turn(tool=self._bash(rng, slots, failing=False)))
        turns.append(Turn(rng.choice(FINALS).format_map(slots)))
        return turns, used

    def _prose(self, rng: random.Random, slots: _Slots, firsts: tuple, length: int) -> str:
        parts = [rng.choice(firsts).format_map(slots)]
        size = len(parts[0])
        while size < length:
            parts.append(rng.choice(NOTES).format_map(_Slots(self.vocab, rng, slots.preset)))
            size += len(parts[-1]) + 1
        return " ".join(parts)

    def _filler(self, rng: random.Random, slots: _Slots, room: int) -> Turn:
        note = None
        if rng.random() < 0.4:
            note = rng.choice(NOTES).format_map(_Slots(self.vocab, rng, slots.preset))
        r = rng.random()
        if r < 0.4:
            tool = self._read(rng, self.vocab.pick(rng, "file"), room)
        elif r < 0.65:
            tool = self._grep(rng, room)
        elif r < 0.85:
            tool = self._tail(rng, slots, room)
        else:
            tool = self._glob(rng, slots)
        return Turn(note, tool)

    # -- tools, with the result text and toolUseResult Claude Code records for each ----------

    def _abs(self, rel: str) -> str:
        return f"{self.vocab.cwd}/{rel}"

    def _code(self, rng: random.Random, n: int, first: str | None = None) -> list[str]:
        lines = [first] if first else []
        while len(lines) < n:
            lines.append(rng.choice(self.vocab.lang.code).format_map(
                _Slots(self.vocab, rng, {})))
        return lines

    def _read(self, rng: random.Random, rel: str, room: int) -> Tool:
        n = max(3, min(400, int(room / 36 * rng.uniform(0.3, 1.0))))
        lines, path = self._code(rng, n), self._abs(rel)
        return Tool("Read", {"file_path": path}, _numbered(lines), {"type": "text", "file": {
            "filePath": path, "content": "\n".join(lines), "numLines": n, "startLine": 1,
            "totalLines": n + rng.randint(0, 300)}})

    def _grep(self, rng: random.Random, room: int) -> Tool:
        v = self.vocab
        pattern = v.pick(rng, "fn")
        k = rng.randint(2, max(3, min(40, room // 90)))
        lines = [f"{self._abs(v.pick(rng, 'file'))}:{rng.randint(5, 900)}:"
                 + rng.choice(v.calls).format_map(_Slots(v, rng, {"fn": pattern})).strip()
                 for _ in range(k)]
        result = "\n".join(lines)
        return Tool("Grep", {"pattern": pattern, "path": v.cwd, "output_mode": "content",
                             "-n": True}, result, {"mode": "content", "numFiles": k,
                                                   "filenames": [], "content": result,
                                                   "numLines": k})

    def _log_lines(self, rng: random.Random, slots: _Slots, n: int) -> str:
        return "\n".join(LOG_LINE.format_map(_Slots(self.vocab, rng, slots.preset))
                         for _ in range(n))

    def _tail(self, rng: random.Random, slots: _Slots, room: int) -> Tool:
        n = max(3, min(600, int(room / 80 * rng.uniform(0.3, 1.0))))
        out = self._log_lines(rng, slots, n)
        return Tool("Bash", {"command": f"tail -n {n} logs/{slots['s']}.log",
                             "description": f"Show recent {slots['s']} log lines"}, out,
                    {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})

    def _glob(self, rng: random.Random, slots: _Slots) -> Tool:
        files = [self._abs(self.vocab.pick(rng, "file")) for _ in range(rng.randint(1, 12))]
        files = list(dict.fromkeys(files))
        return Tool("Glob", {"pattern": f"**/*{slots['s']}*.{self.vocab.lang.ext}"},
                    "\n".join(files), {"filenames": files, "durationMs": rng.randint(3, 90),
                                       "numFiles": len(files), "truncated": False})

    def _bash(self, rng: random.Random, slots: _Slots, *, failing: bool) -> Tool:
        lang = self.vocab.lang
        if failing:
            out = "Exit code 1\n" + lang.fail.format_map(slots)
            return Tool("Bash", {"command": slots["cmd"], "description": "Run the tests"}, out,
                        "Error: " + out, is_error=True)
        out = lang.ok.format_map(slots)
        return Tool("Bash", {"command": slots["cmd"], "description": "Run the tests"}, out,
                    {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})

    def _change(self, rng: random.Random, slots: _Slots, room: int) -> Tool:
        """The exchange's own change: a Write of its new file, or an Edit inside it."""
        lang, path = self.vocab.lang, self._abs(slots["newpath"])
        head = lang.code[0].format_map(_Slots(self.vocab, rng, {"fn": slots["ident"]}))
        lines = max(2, min(40, (room - 250) // 60))
        if slots["kind"] in ("feature", "refactor", "test") or rng.random() < 0.3:
            content = "\n".join(self._code(rng, rng.randint(2, lines), head))
            return Tool("Write", {"file_path": path, "content": content},
                        f"File created successfully at: {path}",
                        {"type": "create", "filePath": path, "content": content,
                         "structuredPatch": []})
        old = "\n".join(self._code(rng, rng.randint(1, 3)))
        new = "\n".join(self._code(rng, rng.randint(2, max(2, lines // 3)), head))
        line = rng.randint(5, 400)
        result = (f"The file {path} has been updated. Here's the result of running `cat -n` on "
                  f"a snippet of the edited file:\n" + _numbered(new.split("\n"), line))
        return Tool("Edit", {"file_path": path, "old_string": old, "new_string": new}, result,
                    {"filePath": path, "oldString": old, "newString": new,
                     "structuredPatch": [{"oldStart": line, "oldLines": old.count("\n") + 1,
                                          "newStart": line, "newLines": new.count("\n") + 1,
                                          "lines": [f"-{x}" for x in old.split("\n")]
                                          + [f"+{x}" for x in new.split("\n")]}],
                     "userModified": False, "replaceAll": False})


@dataclass(frozen=True)
class SynthSummary:
    """What ``generate`` wrote.

    ``records`` counts JSONL lines; ``text_chars`` the characters of message text written
    (requests, prose, tool input and output); ``skipped_records`` the lines the ingest will skip,
    under its own reasons.
    """

    out_dir: str
    sessions_dir: str
    queries_path: str
    qrels_path: str
    projects: tuple[str, ...]
    conversations: int
    exchanges: int
    files: int
    records: int
    bytes: int
    text_chars: int
    queries: int
    judgments: int
    skipped_records: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class _Plan:
    session_id: str
    project: str
    start: datetime
    size: int


@dataclass(frozen=True)
class _Made:
    """One generated exchange and the facts its queries are built from."""

    exchange_id: str
    project: str
    topic: tuple[str, str, str, str]  # concept, subject, aspect, kind
    facets: dict


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _session_sizes(rng: random.Random, total: int) -> list[int]:
    """Geometric sizes (mean 3.43, capped at 40); the last one is cut to reach ``total``."""
    p = 1.0 / MEAN_SESSION_EXCHANGES
    sizes: list[int] = []
    left = total
    while left > 0:
        size = 1 + int(math.log(1.0 - rng.random()) / math.log(1.0 - p))
        sizes.append(min(size, 40, left))
        left -= sizes[-1]
    return sizes


def _plan_sessions(rng: random.Random, total: int, names: list[str]) -> list[_Plan]:
    weights = PROJECT_WEIGHTS[: len(names)]
    plans = []
    for size in _session_sizes(rng, total):
        project = rng.choices(names, weights=weights)[0]
        start = START + timedelta(seconds=rng.uniform(0, SPAN_DAYS * 86400))
        plans.append(_Plan(_uuid(rng), project, start, size))
    return sorted(plans, key=lambda p: (p.start, p.session_id))


class _SessionFile:
    """The envelope: turns one session's turns into records as Claude Code writes them."""

    def __init__(self, rng: random.Random, plan: _Plan, cwd: str, branch: str):
        self.rng, self.t, self.parent = rng, plan.start, None
        day = (plan.start - START).days
        version = VERSIONS[min(len(VERSIONS) - 1, day * len(VERSIONS) // SPAN_DAYS)]
        self.model = "claude-opus-4-5-20251101" if day > 75 and rng.random() < 0.5 \
            else "claude-sonnet-4-5-20250929"
        self.base = {"parentUuid": None, "isSidechain": False, "userType": "external",
                     "cwd": cwd, "sessionId": plan.session_id, "version": version,
                     "gitBranch": branch}
        self.lines: list[str] = []
        self.skipped: Counter = Counter()

    def _tick(self, lo: float = 1.5, hi: float = 25.0) -> str:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return _ts(self.t)

    def _put(self, rec: dict) -> None:
        self.lines.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))

    def _record(self, kind: str, body: dict, **extra) -> str:
        rid = _uuid(self.rng)
        rec = {**self.base, "parentUuid": self.parent, **body, "type": kind, "uuid": rid,
               "timestamp": self._tick(), **extra}
        self._put(rec)
        self.parent = rid
        return rid

    def request(self, text: str, gap_minutes: float) -> str:
        self.t += timedelta(minutes=gap_minutes)
        rid = _uuid(self.rng)
        self._put({"type": "file-history-snapshot", "messageId": rid, "snapshot": {
            "messageId": rid, "trackedFileBackups": {}, "timestamp": _ts(self.t)},
            "isSnapshotUpdate": False})
        self.skipped["record:file-history-snapshot"] += 1
        rec = {**self.base, "parentUuid": self.parent, "type": "user",
               "message": {"role": "user", "content": text}, "uuid": rid,
               "timestamp": self._tick(), "permissionMode": "default"}
        self._put(rec)
        self.parent = rid
        return rid

    def response(self, turn: Turn) -> None:
        blocks = []
        if turn.thinking:
            blocks.append({"type": "thinking", "thinking": turn.thinking,
                           "signature": f"Eq{self.rng.getrandbits(120):030x}"})
        if turn.text:
            blocks.append({"type": "text", "text": turn.text})
        tool_id = f"toolu_01{self.rng.getrandbits(110):028x}"
        if turn.tool:
            blocks.append({"type": "tool_use", "id": tool_id, "name": turn.tool.name,
                           "input": turn.tool.input})
        usage = {"input_tokens": self.rng.randint(3, 12),
                 "cache_creation_input_tokens": self.rng.randint(0, 4000),
                 "cache_read_input_tokens": self.rng.randint(12000, 90000),
                 "output_tokens": self.rng.randint(20, 900), "service_tier": "standard"}
        mid = f"msg_01{self.rng.getrandbits(110):028x}"
        req = f"req_011C{self.rng.getrandbits(100):025x}"
        for block in blocks:  # one content block per line, as Claude Code streams them
            self._record("assistant", {"message": {
                "model": self.model, "id": mid, "type": "message", "role": "assistant",
                "content": [block], "stop_reason": None, "stop_sequence": None,
                "usage": usage}}, requestId=req)
        if turn.tool:
            self._tool_result(tool_id, turn)

    def _tool_result(self, tool_id: str, turn: Turn) -> None:
        tool = turn.tool
        if self.rng.random() < 0.6:
            self._record("progress", {"data": {
                "type": "hook_progress", "hookEvent": "PostToolUse",
                "hookName": f"PostToolUse:{tool.name}", "command": "callback"},
                "parentToolUseID": tool_id, "toolUseID": tool_id})
            self.skipped["record:progress"] += 1
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": tool.result}
        if tool.is_error:
            block["is_error"] = True
        self._record("user", {"message": {"role": "user", "content": [block]}},
                     toolUseResult=tool.detail)

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def _write_session(rng: random.Random, composer: Composer, plan: _Plan,
                   folder: Path) -> tuple[list[_Made], _SessionFile, int]:
    vocab = composer.vocab
    out = _SessionFile(rng, plan, vocab.cwd, vocab.branch(rng))
    theme = composer.theme(rng)
    made = []
    for i in range(plan.size):
        ex = composer.exchange(rng, theme, follow_up=i > 0)
        rid = out.request(ex.request, rng.uniform(0.2, 3.0) if i == 0 else rng.expovariate(1 / 9))
        for turn in ex.turns:
            out.response(turn)
        made.append(_Made(exchange_id_for(plan.session_id, rid), vocab.name, ex.topic,
                          ex.facets))
    data = out.text().encode("utf-8")
    (folder / f"{plan.session_id}.jsonl").write_bytes(data)
    return made, out, len(data)


def _write_sessions(root: Path, composers: dict[str, Composer], plans: list[_Plan], seed: int,
                    progress: Callable | None) -> tuple[list[_Made], Counter]:
    rng = random.Random(f"{seed}:text")
    made: list[_Made] = []
    stats: Counter = Counter()
    total = sum(p.size for p in plans)
    for plan in plans:
        folder = root / composers[plan.project].vocab.folder
        got, written, size = _write_session(rng, composers[plan.project], plan, folder)
        made.extend(got)
        stats.update(written.skipped)
        stats.update(records=len(written.lines), bytes=size)
        if progress:
            progress(len(made), total, str(folder / f"{plan.session_id}.jsonl"))
    return made, stats


def generate(out_dir: str | Path, *, exchanges: int = 14340, projects: int = 6, seed: int = 0,
             queries: int = 200,
             progress: Callable[[int, int, str], None] | None = None) -> SynthSummary:
    """Write a synthetic history of ``exchanges`` exchanges into the empty folder ``out_dir``.

    ``progress(done_exchanges, exchanges, session_path)`` is called after each session file.
    """
    if exchanges < 1:
        raise ValueError(f"exchanges must be at least 1, not {exchanges}")
    if not 1 <= projects <= len(PROJECTS):
        raise ValueError(f"projects must be between 1 and {len(PROJECTS)}, not {projects}")
    out = Path(out_dir).expanduser()
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} is not empty; synth writes only into an empty folder")
    taken: set[str] = set()  # shared, so a minted name is unique across projects too
    composers = {s.name: Composer(Vocab(s, seed, taken)) for s in PROJECTS[:projects]}
    for c in composers.values():
        (out / SESSIONS_DIR / c.vocab.folder).mkdir(parents=True, exist_ok=True)
    plans = _plan_sessions(random.Random(f"{seed}:plan"), exchanges, list(composers))
    made, stats = _write_sessions(out / SESSIONS_DIR, composers, plans, seed, progress)
    rows, qrels = _build_queries(random.Random(f"{seed}:queries"), made, queries)
    _write_queries(out, rows, qrels)
    return SynthSummary(
        out_dir=str(out), sessions_dir=str(out / SESSIONS_DIR),
        queries_path=str(out / "queries.jsonl"), qrels_path=str(out / "qrels.txt"),
        projects=tuple(composers), conversations=len(plans), exchanges=len(made),
        files=len(plans), records=stats.pop("records"), bytes=stats.pop("bytes"),
        text_chars=sum(c.chars for c in composers.values()), queries=len(rows),
        judgments=len(qrels), skipped_records=dict(sorted(stats.items())))


# -- known-item queries -----------------------------------------------------------------------


def _build_queries(rng: random.Random, made: list[_Made], n: int) -> tuple[list[dict], list[str]]:
    """``n`` queries cycling through :data:`QUERY_TYPES`, each aimed at one exchange."""
    by_topic: dict[tuple, list[str]] = {}
    by_concept: dict[tuple, list[str]] = {}
    for m in made:
        by_topic.setdefault((m.project, *m.topic), []).append(m.exchange_id)
        by_concept.setdefault((m.project, *m.topic[:2]), []).append(m.exchange_id)
    used: set[str] = set()
    rows, qrels = [], []
    for i in range(n):
        qtype = QUERY_TYPES[i % len(QUERY_TYPES)]
        target = _pick_target(rng, made, qtype, used)
        if target is None:
            continue
        qid = f"q{len(rows) + 1:03d}"
        rows.append({"query_id": qid, "query": _query_text(rng, target, qtype), "type": qtype})
        grades = {target.exchange_id: 3}
        if qtype == "conceptual":  # a paraphrase cannot tell apart exchanges on the same topic
            for xid in by_concept[(target.project, *target.topic[:2])]:
                grades.setdefault(xid, 1)
            for xid in by_topic[(target.project, *target.topic)]:
                grades[xid] = max(grades[xid], 2)
        for xid, grade in sorted(grades.items(), key=lambda kv: (-kv[1], kv[0])):
            qrels.append(f"{qid} 0 {xid} {grade}")
    return rows, qrels


_MINTED = re.compile(r"\d{4}")
_NEEDS = {"exact_term": "ident", "file_path": "path", "conceptual": "paraphrase",
          "error": "error", "mixed": "num"}


def _pick_target(rng: random.Random, made: list[_Made], qtype: str, used: set) -> _Made | None:
    for _ in range(200):
        m = made[rng.randrange(len(made))]
        if m.exchange_id not in used and _NEEDS[qtype] in m.facets:
            used.add(m.exchange_id)
            return m
    return None


def _query_text(rng: random.Random, m: _Made, qtype: str) -> str:
    f = m.facets
    concept, subject, aspect, _kind = m.topic
    if qtype == "exact_term":
        return rng.choice((f["ident"], f"where did we add {f['ident']}",
                           f"{f['ident']} {concept}"))
    if qtype == "file_path":
        base = f["path"].rsplit("/", 1)[-1]
        return rng.choice((f["path"], f"changes to {base}", f"{f['path']} {subject}"))
    if qtype == "error":
        words = f["error"].split(": ", 1)[-1].split()
        # keep the minted number (4+ digits), which makes the error this exchange's own
        at = next((i for i, w in enumerate(words) if _MINTED.search(w)), len(words) - 1)
        return " ".join(words[:rng.randint(max(at + 1, min(4, len(words))), len(words))])
    if qtype == "conceptual":
        return rng.choice((f"how did we deal with {f['paraphrase']} for the {subject} {aspect}",
                           f"{f['paraphrase']} in {subject} {aspect} code",
                           f"the time we {f['kind_phrase']} {f['paraphrase']} for {subject}s"))
    return f"{concept} {subject} {aspect} {f['num']}"


def _write_queries(out: Path, rows: list[dict], qrels: list[str]) -> None:
    (out / "queries.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    (out / "qrels.txt").write_text("".join(line + "\n" for line in qrels), "utf-8")


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
