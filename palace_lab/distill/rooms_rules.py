"""Room assignment for the rules distiller: one file, one concept and one workflow room at most.

- file room: the file the exchange mentions most (key: its normalised path).
- concept room: the most distinctive phrase (a bigram of adjacent terms, else a term) of what
  the person and the agent said that other exchanges share too (document frequency ≥ 2 and
  below ``max_df_share`` of the palace), so the room groups exchanges instead of naming one.
- workflow room: the kind of work, scored by cue words; ``discussion`` when none match.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from palace_lab.distill.base import CorpusStats
from palace_lab.distill.terms import idf, terms
from palace_lab.text.content import GENERIC
from palace_lab.model import Exchange, Room

WORKFLOWS: dict[str, tuple[str, frozenset[str]]] = {
    "debugging": ("Debugging", frozenset(
        "error errors bug bugs fix fixed fixes fail failing fails failed traceback exception crash "
        "broken debug investigate root cause why "
        "regression panic stack trace issue wrong".split())),
    "testing": ("Testing", frozenset(
        "test tests testing pytest vitest nextest jest coverage flaky fixture fixtures assert "
        "spec playwright".split())),
    "refactoring": ("Refactoring", frozenset(
        "refactor refactoring rename renamed extract move moved cleanup clean split simplify "
        "restructure".split())),
    "feature": ("Feature work", frozenset(
        "add added implement implemented feature support new endpoint create build "
        "introduce".split())),
    "configuration": ("Configuration", frozenset(
        "config configuration settings env environment variable toml yaml option flag "
        "setting".split())),
    "deployment": ("Deployment & CI", frozenset(
        "deploy deployment docker dockerfile release ci pipeline workflow github actions fly "
        "kubernetes image build publish".split())),
    "performance": ("Performance", frozenset(
        "slow performance latency memory leak fast faster speed optimize profile cpu "
        "benchmark timeout".split())),
    "docs": ("Documentation", frozenset(
        "docs documentation readme document docstring comment changelog explain".split())),
    "review": ("Review", frozenset("review diff pr pull request feedback audit".split())),
    "design": ("Design decision", frozenset(
        "design decide decision architecture approach tradeoff trade-off should pros cons "
        "compare option alternative".split())),
}


def workflow_room(text_terms: list[str]) -> Room:
    counts = Counter(text_terms)
    scores = {k: sum(counts[w] for w in cues) for k, (_, cues) in WORKFLOWS.items()}
    total = sum(scores.values())
    key = max(scores, key=lambda k: (scores[k], -list(WORKFLOWS).index(k)))
    if scores[key] == 0:
        return Room("workflow", "discussion", "Discussion", 0.5)
    share = scores[key] / total
    return Room("workflow", key, WORKFLOWS[key][0], round(0.5 + 0.5 * share, 2))


def file_room(exchange: Exchange) -> Room | None:
    if not exchange.files_touched:
        return None
    counts = {p: exchange.verbatim.count(p) for p in exchange.files_touched}
    path = max(exchange.files_touched, key=lambda p: (counts[p], -exchange.files_touched.index(p)))
    relevance = min(1.0, 0.5 + 0.1 * counts[path])
    return Room("file", path.lower(), path.rsplit("/", 1)[-1], round(relevance, 2))


# Words that recur across exchanges without naming anything a person would file under (JSON's
# null, "ones" from "the failing ones"): seen as concept rooms on real histories.
NOT_ROOMS = frozenset("null none ones true false undefined nan self this that them".split())


def _phrase_ok(term: str) -> bool:
    return (len(term) >= 4 and not term[0].isdigit() and "/" not in term and "." not in term
            and term not in GENERIC and term not in NOT_ROOMS)


def _candidates(said: str) -> Counter:
    ts = [t for t in terms(said) if _phrase_ok(t)]
    found = Counter(ts)
    found.update(f"{a} {b}" for a, b in zip(ts, ts[1:]) if a != b)
    return found


def concept_room(said: str, stats: CorpusStats, *, max_df_share: float = 0.15) -> Room | None:
    """The phrase that best names what this exchange shares with a few others.

    Score = (1 + log tf) · idf · log(df): idf favours distinctive phrases, log(df) favours
    those that recur (a room of one exchange groups nothing); phrases in more than
    ``max_df_share`` of the palace are too common to be a room.
    """
    n = max(stats.n_docs, 1)
    ceiling = max(3, max_df_share * n)
    best, best_score = None, 0.0
    for phrase, tf in _candidates(said).items():
        df = stats.term_df.get(phrase, 0)
        if df < 2 or df > ceiling:
            continue
        score = (1 + math.log(tf)) * idf(phrase, stats) * math.log(df) * (2.0 if " " in phrase else 1.0)
        if score > best_score or (score == best_score and best and phrase < best):
            best, best_score = phrase, score
    if best is None:
        return None
    key = re.sub(r"[^a-z0-9]+", "_", best).strip("_")
    relevance = min(1.0, 0.4 + 0.15 * best_score)
    return Room("concept", key, best, round(relevance, 2))


def assign_rooms(exchange: Exchange, said: str, stats: CorpusStats) -> tuple[Room, ...]:
    rooms = [r for r in (file_room(exchange), concept_room(said, stats)) if r]
    rooms.append(workflow_room(terms(exchange.request + "\n" + said)))
    return tuple(rooms[:3])
