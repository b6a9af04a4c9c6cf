"""LongMemEval (its ``longmemeval_*.json``) as a :class:`Benchmark`.

Each question carries its own haystack (``haystack_sessions`` with ``haystack_session_ids`` and
``haystack_dates``), so each question is its own scope: its sessions are conversations
``<question_id>:<session_id>`` in project ``<question_id>``, and the question searches only them.
Gold: the turns marked ``has_answer`` (message gold) where the answer sessions mark any, else
the ``answer_session_ids`` (session gold). Abstention questions (``question_id`` ending in
``_abs``) have no answer in the haystack and are left out (counted).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from palace_lab.bench.base import Benchmark, Question, read_json_list


def _stamp(text) -> str | None:
    """LongMemEval dates (``"2023/05/20 (Sat) 02:21"``) → ISO 8601; None when unreadable."""
    try:
        moment = datetime.strptime(str(text).split(" (")[0] + " " + str(text).split(") ")[-1],
                                   "%Y/%m/%d %H:%M")
    except (ValueError, IndexError):
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:00.000Z")


def _instance(item: dict, bench: Benchmark) -> None:
    qid = str(item["question_id"])
    if qid.endswith("_abs"):
        bench.dropped["abstention (no answer in the haystack)"] += 1
        return
    ids = [str(s) for s in item.get("haystack_session_ids") or []]
    dates = list(item.get("haystack_dates") or [])
    answers = {str(s) for s in item.get("answer_session_ids") or []}
    messages, sessions = [], []
    for i, turns in enumerate(item.get("haystack_sessions") or []):
        sid = ids[i] if i < len(ids) else f"s{i}"
        cid, stamp = f"{qid}:{sid}", _stamp(dates[i]) if i < len(dates) else None
        if sid in answers:
            sessions.append(cid)
        for position, turn in enumerate(turns or []):
            record = {"conversation_id": cid, "role": turn.get("role"),
                      "content": str(turn.get("content", "")), "project": qid}
            if stamp:
                record["timestamp"] = stamp
            bench.records.append(record)
            if turn.get("has_answer") and sid in answers:
                messages.append((cid, position))
    if not (messages or sessions):
        bench.dropped["no answer session in the haystack"] += 1
        return
    bench.questions.append(Question(qid, str(item.get("question", "")),
                                    str(item.get("question_type", "")), project=qid,
                                    messages=tuple(messages), sessions=tuple(sessions)))


def load_longmemeval(path: Path) -> Benchmark:
    """LongMemEval from its JSON file (a list of question instances)."""
    items = read_json_list(Path(path), "LongMemEval", "haystack_sessions")
    bench = Benchmark("longmemeval", [], [], "message")
    for item in items:
        _instance(item, bench)
    bench.notes.append("each question searches its own haystack; abstention questions left out")
    return bench
