"""Writing the synthetic corpus: sessions planned and written as Claude Code 2.x files, and the
known-item queries with their qrels (:func:`generate`)."""

from __future__ import annotations

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
from palace_lab.synth.composition import Composer, Turn
from palace_lab.synth.lexicon import PROJECTS, Lexicon

SESSIONS_DIR = "claude_code"
START = datetime(2025, 9, 1, 8, 0, tzinfo=timezone.utc)
SPAN_DAYS = 182
MEAN_SESSION_EXCHANGES = 14340 / 4182
PROJECT_WEIGHTS = (0.29, 0.22, 0.17, 0.13, 0.11, 0.08)
VERSIONS = ("2.0.14", "2.0.27", "2.0.42", "2.0.55", "2.0.76", "2.1.3", "2.1.17", "2.1.31",
            "2.1.42")  # Claude Code releases over the six months, in order
QUERY_TYPES = ("exact_term", "file_path", "conceptual", "error", "mixed")


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
    lexicon = composer.lexicon
    out = _SessionFile(rng, plan, lexicon.cwd, lexicon.branch(rng))
    theme = composer.theme(rng)
    made = []
    for i in range(plan.size):
        ex = composer.exchange(rng, theme, follow_up=i > 0)
        rid = out.request(ex.request, rng.uniform(0.2, 3.0) if i == 0 else rng.expovariate(1 / 9))
        for turn in ex.turns:
            out.response(turn)
        made.append(_Made(exchange_id_for(plan.session_id, rid), lexicon.name, ex.topic,
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
        folder = root / composers[plan.project].lexicon.folder
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
    composers = {s.name: Composer(Lexicon(s, seed, taken)) for s in PROJECTS[:projects]}
    for c in composers.values():
        (out / SESSIONS_DIR / c.lexicon.folder).mkdir(parents=True, exist_ok=True)
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
