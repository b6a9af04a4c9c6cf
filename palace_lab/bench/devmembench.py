"""DevMemBench (``sessions.json`` + ``questions.json``) as a :class:`Benchmark`.

Each session is one conversation (its ``sessionId``), with its ``metadata.date`` as timestamp and
``metadata.project`` as project; every question searches all sessions (the benchmark asks which
project's history holds the answer). Gold is per session (``haystackSessionIds``): any exchange
of a listed session is relevant, so the figures measure session-level recall. ``abstention``
questions have no answer in the data and are left out (counted).
"""

from __future__ import annotations

from pathlib import Path

from palace_lab.bench.base import Benchmark, Question, read_json_list


def _records(session: dict) -> list[dict]:
    meta = session.get("metadata") or {}
    cid = str(session["sessionId"])
    out = []
    for m in session.get("messages") or []:
        record = {"conversation_id": cid, "role": m.get("role"), "content": str(m.get("content", "")),
                  "title": f"{meta.get('project', '')} {cid}".strip()}
        if meta.get("project"):
            record["project"] = str(meta["project"])
        if meta.get("date"):
            record["timestamp"] = f"{meta['date']}T00:00:00.000Z"
        out.append(record)
    return out


def load_devmembench(folder: Path) -> Benchmark:
    """DevMemBench from a folder holding ``sessions.json`` and ``questions.json``."""
    folder = Path(folder)
    sessions = read_json_list(folder / "sessions.json", "DevMemBench sessions")
    questions = read_json_list(folder / "questions.json", "DevMemBench questions", "questionId")
    bench = Benchmark("devmembench", [], [], "session")
    known = set()
    for s in sessions:
        if not isinstance(s, dict) or "sessionId" not in s:
            bench.dropped["session without sessionId"] += 1
            continue
        known.add(str(s["sessionId"]))
        bench.records.extend(_records(s))
    for q in questions:
        qtype = str(q.get("questionType", ""))
        if qtype == "abstention":
            bench.dropped["abstention (no answer in the data)"] += 1
            continue
        gold = tuple(str(x) for x in q.get("haystackSessionIds") or [] if str(x) in known)
        if not gold:
            bench.dropped["no known gold session"] += 1
            continue
        bench.questions.append(Question(str(q["questionId"]), str(q.get("question", "")), qtype,
                                        sessions=gold))
    bench.notes.append("session-level gold: any exchange of a gold session is relevant")
    return bench
