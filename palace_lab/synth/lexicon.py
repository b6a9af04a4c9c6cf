"""What the synthetic history says: projects, their identifiers, paths and errors drawn with
Zipf weights (:class:`Lexicon`), and the sentence templates of requests, notes and answers."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass


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


class Slots(dict):
    """Template values: preset ones, and any other name drawn from the lexicon on first use."""

    def __init__(self, lexicon: "Lexicon", rng: random.Random, preset: dict):
        super().__init__(preset)
        self.lexicon, self.rng = lexicon, rng
        self.preset = dict(preset)  # the exchange's fixed values, for prose drawn afresh

    def __missing__(self, key: str) -> str:
        value = self.lexicon.pick(self.rng, key.rstrip("0123456789"))
        self[key] = value
        return value

    def draw(self, *keys: str) -> None:
        for key in keys:
            _ = self[key]  # a missing key is drawn and kept


class Lexicon:
    """One project's names: common ones drawn with Zipf weights, minted ones used only once."""

    def __init__(self, spec: ProjectSpec, seed: int, taken: set[str]):
        rng = random.Random(f"{seed}:lexicon:{spec.name}")
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
        raise KeyError(f"template names {key!r}, which the lexicon does not know")

    def _mint(self, rng: random.Random, make: Callable[[], str]) -> str:
        for _ in range(1000):
            value = make()
            if value not in self.taken:
                self.taken.add(value)
                return value
        raise RuntimeError("lexicon exhausted; lower the number of exchanges per project")

    def mint_ident(self, rng: random.Random, subject: str) -> str:
        return self._mint(rng, lambda: _case(
            [rng.choice(VERBS), subject, rng.choice((*self.nouns, *ATTRS)), rng.choice(QUALS)],
            self.lang.camel))

    def mint_path(self, rng: random.Random, subject: str) -> str:
        sep = "-" if self.lang.ext == "ts" else "_"
        return self._mint(rng, lambda: self.lang.new_path.format(
            p=self.name, n2=rng.choice(self.nouns), s=subject,
            q=f"{rng.choice(QUALS + VERBS)}{sep}{rng.choice(ATTRS)}".replace("_", sep)))

    def mint_error(self, rng: random.Random, slots: Slots) -> str:
        return self._mint(rng, lambda: rng.choice(self.lang.errors).format_map(
            {**slots, "uid": str(rng.randint(1000, 999999))}))

    def branch(self, rng: random.Random) -> str:
        return rng.choice(("main", "main", "main", f"fix/{rng.choice(self.nouns)}",
                           f"feat/{rng.choice(self.nouns)}-{rng.choice(QUALS)}"))
