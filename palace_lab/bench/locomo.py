"""LoCoMo (snap-research/LoCoMo, ``locomo10.json``) and its audit errata, as a :class:`Benchmark`.

- Each session of a sample is one conversation (``<sample_id>:S<n>``), its project the sample
  id: a question searches only its own sample, as LoCoMo is meant to be read. ``speaker_a``'s
  turns are the requests (role user), ``speaker_b``'s the replies, so an exchange is one turn of
  each; a session that opens with ``speaker_b`` keeps that turn in its first exchange.
- A turn with an image is its text plus ``[image: <blip_caption>]``: what a person saw.
- Session dates (``"1:56 pm on 8 May, 2023"``) become the timestamps of its turns.
- Questions: categories 1-4 (multi-hop, temporal, open-domain, single-hop); category 5
  (adversarial, unanswerable) is left out of recall metrics and counted.
- Evidence ids are normalised (``"D8:6; D9:17"``, ``"D:11:26"``, ``"D30:05"``); an erratum
  (``errors_conv_<i>.json``, ``question_id`` ``locomo_<i>_qa<j>``, ``<i>`` the sample's position,
  ``<j>`` the question's 0-based position) with a non-empty ``correct_evidence`` replaces the
  cited evidence, an empty one drops the question; so does evidence naming a missing turn.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from palace_lab.bench.base import Benchmark, Question, read_json_list
from palace_lab.errors import PalaceError

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)$")


def evidence_ids(items) -> list[str]:
    """Normalised ``D<session>:<turn>`` ids from LoCoMo's evidence list, however written."""
    out = []
    for item in items if isinstance(items, list) else [items]:
        for s, t in _EVIDENCE.findall(str(item)):
            out.append(f"D{int(s)}:{int(t)}")
    return list(dict.fromkeys(out))


def session_time(text: str | None) -> str | None:
    """``"1:56 pm on 8 May, 2023"`` → ISO 8601 (UTC assumed); None when unreadable."""
    try:
        moment = datetime.strptime(" ".join(str(text).split()), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:00.000Z")


def _turn_text(turn: dict) -> str:
    text = str(turn.get("text") or "")
    caption = turn.get("blip_caption")
    return f"{text} [image: {caption}]" if caption else text


def sample_records(sample: dict, position: int) -> tuple[list[dict], dict[str, tuple[str, int]]]:
    """The sample's palace records and ``{dia_id: (conversation_id, position)}``."""
    conv = sample["conversation"]
    sid = str(sample.get("sample_id") or f"sample-{position}")
    a = conv.get("speaker_a")
    records, turns = [], {}
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION.match(k)))
    for n in numbers:
        cid, stamp = f"{sid}:S{n}", session_time(conv.get(f"session_{n}_date_time"))
        for i, turn in enumerate(conv.get(f"session_{n}") or []):
            record = {"conversation_id": cid, "role": "user" if turn.get("speaker") == a else "assistant",
                      "content": f"{turn.get('speaker')}: {_turn_text(turn)}", "project": sid,
                      "title": f"{sid} session {n}"}
            if stamp:
                record["timestamp"] = stamp
            records.append(record)
            for dia in evidence_ids(turn.get("dia_id", "")):
                turns[dia] = (cid, i)
    return records, turns


def read_errata(folder: Path) -> dict[str, list]:
    """``{question_id: correct_evidence}`` from every ``errors_conv_<i>.json`` in ``folder``."""
    out = {}
    for path in sorted(folder.glob("errors_conv_*.json")):
        for item in read_json_list(path, "LoCoMo errata"):
            if isinstance(item, dict) and "question_id" in item:
                out[str(item["question_id"])] = item.get("correct_evidence") or []
    return out


def _question(sample: dict, position: int, j: int, qa: dict, turns: dict, errata: dict,
              dropped) -> Question | None:
    category = qa.get("category")
    if category not in (1, 2, 3, 4):
        dropped[f"category {category} ({CATEGORIES.get(category, 'unknown')})"] += 1
        return None
    qid = f"locomo_{position}_qa{j}"
    cited = evidence_ids(qa.get("evidence") or [])
    if qid in errata:
        cited = evidence_ids(errata[qid])
        if not cited:
            dropped["erratum: no turn supports the answer"] += 1
            return None
    if not cited:
        dropped["no evidence"] += 1
        return None
    if any(c not in turns for c in cited):
        dropped["evidence names a missing turn"] += 1
        return None
    sid = str(sample.get("sample_id") or f"sample-{position}")
    return Question(qid, str(qa.get("question", "")), CATEGORIES[category], project=sid,
                    messages=tuple(turns[c] for c in cited))


def load_locomo(path: Path, errata: Path | None = None) -> Benchmark:
    """LoCoMo from ``path`` (the JSON file, or a folder holding ``locomo10*.json``), with the
    errata files of ``errata`` (default: beside the data) when there are any."""
    path = Path(path)
    data_file = path if path.is_file() else _find(path)
    samples = read_json_list(data_file, "LoCoMo", "conversation")
    fixes = read_errata(Path(errata) if errata else data_file.parent)
    bench = Benchmark("locomo", [], [], "message")
    for position, sample in enumerate(samples):
        records, turns = sample_records(sample, position)
        bench.records.extend(records)
        for j, qa in enumerate(sample.get("qa") or []):
            q = _question(sample, position, j, qa, turns, fixes, bench.dropped)
            if q:
                bench.questions.append(q)
    bench.notes.append(f"{len(fixes)} errata read; category 5 (adversarial) left out of recall")
    return bench


def _find(folder: Path) -> Path:
    found = sorted(folder.glob("locomo10*.json"))
    if not found:
        raise PalaceError(f"no locomo10*.json in {folder}")
    return found[0]
