"""How one synthetic exchange is composed from a project's lexicon: a request, tool calls
with their results, and a final answer, sized log-normally (:class:`Composer`)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from palace_lab.synth.lexicon import (ANSWERS, CONCEPTS, FINALS, FOLLOW_UPS, KINDS, LOG_LINE,
                                         NOTES, OPENINGS, REQUESTS, THINKING, Slots, Lexicon)


# Text written per exchange (log-normal plus a heavier 1% tail). With the role labels and
# spacing the verbatim layer adds, seed 0 measures: mean 1,398 characters, 375 cl100k tokens
# (the paper: 371), median 817, p99 6.6k, max 60k.
MEAN_TEXT_CHARS = 830
SIGMA = 0.9
HEAVY_TAIL = 0.01  # this share of exchanges is 4-15 times longer still


@dataclass(frozen=True)
class ToolCall:
    """One tool round-trip of a synthetic turn: the call, its result and the record's detail."""

    name: str
    input: dict
    result: str
    detail: object  # the record's toolUseResult
    is_error: bool = False


@dataclass(frozen=True)
class Turn:
    """One assistant response: optional thinking and text, optional tool round-trip."""

    text: str | None = None
    tool: ToolCall | None = None
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

    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon
        self.chars = 0
        self.mu = math.log(MEAN_TEXT_CHARS) - SIGMA * SIGMA / 2

    def theme(self, rng: random.Random) -> dict:
        """What one session is about; its exchanges mostly stay on it."""
        v = self.lexicon
        subject, aspect = rng.sample(v.nouns, 2)
        return {"concept": rng.randrange(len(CONCEPTS)), "subject": subject, "aspect": aspect,
                "kind": rng.choice(tuple(KINDS)), "path": v.pick(rng, "file"),
                "fn": v.pick(rng, "fn"), "cls": v.pick(rng, "cls"), "CONF": v.pick(rng, "CONF")}

    def _slots(self, rng: random.Random, theme: dict, kind: str) -> Slots:
        v, lang = self.lexicon, self.lexicon.lang
        concept = theme["concept"] if rng.random() < 0.7 else rng.randrange(len(CONCEPTS))
        subject = theme["subject"]
        aspect = theme["aspect"] if rng.random() < 0.6 else rng.choice(v.nouns)
        preset = {**theme, "concept": CONCEPTS[concept][0], "paraphrase": CONCEPTS[concept][1],
                  "aspect": aspect, "s": subject, "p": v.name,
                  "kind": kind,
                  "ident": v.mint_ident(rng, subject), "newpath": v.mint_path(rng, subject),
                  "testpath": lang.test_path.format(s=subject, n=aspect)}
        slots = Slots(v, rng, preset)
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

    def _turns(self, rng: random.Random, slots: Slots, budget: int,
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

    def _prose(self, rng: random.Random, slots: Slots, firsts: tuple, length: int) -> str:
        parts = [rng.choice(firsts).format_map(slots)]
        size = len(parts[0])
        while size < length:
            parts.append(rng.choice(NOTES).format_map(Slots(self.lexicon, rng, slots.preset)))
            size += len(parts[-1]) + 1
        return " ".join(parts)

    def _filler(self, rng: random.Random, slots: Slots, room: int) -> Turn:
        note = None
        if rng.random() < 0.4:
            note = rng.choice(NOTES).format_map(Slots(self.lexicon, rng, slots.preset))
        r = rng.random()
        if r < 0.4:
            tool = self._read(rng, self.lexicon.pick(rng, "file"), room)
        elif r < 0.65:
            tool = self._grep(rng, room)
        elif r < 0.85:
            tool = self._tail(rng, slots, room)
        else:
            tool = self._glob(rng, slots)
        return Turn(note, tool)

    # -- tools, with the result text and toolUseResult Claude Code records for each ----------

    def _abs(self, rel: str) -> str:
        return f"{self.lexicon.cwd}/{rel}"

    def _code(self, rng: random.Random, n: int, first: str | None = None) -> list[str]:
        lines = [first] if first else []
        while len(lines) < n:
            lines.append(rng.choice(self.lexicon.lang.code).format_map(
                Slots(self.lexicon, rng, {})))
        return lines

    def _read(self, rng: random.Random, rel: str, room: int) -> ToolCall:
        n = max(3, min(400, int(room / 36 * rng.uniform(0.3, 1.0))))
        lines, path = self._code(rng, n), self._abs(rel)
        return ToolCall("Read", {"file_path": path}, _numbered(lines), {"type": "text", "file": {
            "filePath": path, "content": "\n".join(lines), "numLines": n, "startLine": 1,
            "totalLines": n + rng.randint(0, 300)}})

    def _grep(self, rng: random.Random, room: int) -> ToolCall:
        v = self.lexicon
        pattern = v.pick(rng, "fn")
        k = rng.randint(2, max(3, min(40, room // 90)))
        lines = [f"{self._abs(v.pick(rng, 'file'))}:{rng.randint(5, 900)}:"
                 + rng.choice(v.calls).format_map(Slots(v, rng, {"fn": pattern})).strip()
                 for _ in range(k)]
        result = "\n".join(lines)
        return ToolCall("Grep", {"pattern": pattern, "path": v.cwd, "output_mode": "content",
                             "-n": True}, result, {"mode": "content", "numFiles": k,
                                                   "filenames": [], "content": result,
                                                   "numLines": k})

    def _log_lines(self, rng: random.Random, slots: Slots, n: int) -> str:
        return "\n".join(LOG_LINE.format_map(Slots(self.lexicon, rng, slots.preset))
                         for _ in range(n))

    def _tail(self, rng: random.Random, slots: Slots, room: int) -> ToolCall:
        n = max(3, min(600, int(room / 80 * rng.uniform(0.3, 1.0))))
        out = self._log_lines(rng, slots, n)
        return ToolCall("Bash", {"command": f"tail -n {n} logs/{slots['s']}.log",
                             "description": f"Show recent {slots['s']} log lines"}, out,
                    {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})

    def _glob(self, rng: random.Random, slots: Slots) -> ToolCall:
        files = [self._abs(self.lexicon.pick(rng, "file")) for _ in range(rng.randint(1, 12))]
        files = list(dict.fromkeys(files))
        return ToolCall("Glob", {"pattern": f"**/*{slots['s']}*.{self.lexicon.lang.ext}"},
                    "\n".join(files), {"filenames": files, "durationMs": rng.randint(3, 90),
                                       "numFiles": len(files), "truncated": False})

    def _bash(self, rng: random.Random, slots: Slots, *, failing: bool) -> ToolCall:
        lang = self.lexicon.lang
        if failing:
            out = "Exit code 1\n" + lang.fail.format_map(slots)
            return ToolCall("Bash", {"command": slots["cmd"], "description": "Run the tests"}, out,
                        "Error: " + out, is_error=True)
        out = lang.ok.format_map(slots)
        return ToolCall("Bash", {"command": slots["cmd"], "description": "Run the tests"}, out,
                    {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})

    def _change(self, rng: random.Random, slots: Slots, room: int) -> ToolCall:
        """The exchange's own change: a Write of its new file, or an Edit inside it."""
        lang, path = self.lexicon.lang, self._abs(slots["newpath"])
        head = lang.code[0].format_map(Slots(self.lexicon, rng, {"fn": slots["ident"]}))
        lines = max(2, min(40, (room - 250) // 60))
        if slots["kind"] in ("feature", "refactor", "test") or rng.random() < 0.3:
            content = "\n".join(self._code(rng, rng.randint(2, lines), head))
            return ToolCall("Write", {"file_path": path, "content": content},
                        f"File created successfully at: {path}",
                        {"type": "create", "filePath": path, "content": content,
                         "structuredPatch": []})
        old = "\n".join(self._code(rng, rng.randint(1, 3)))
        new = "\n".join(self._code(rng, rng.randint(2, max(2, lines // 3)), head))
        line = rng.randint(5, 400)
        result = (f"The file {path} has been updated. Here's the result of running `cat -n` on "
                  f"a snippet of the edited file:\n" + _numbered(new.split("\n"), line))
        return ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new}, result,
                    {"filePath": path, "oldString": old, "newString": new,
                     "structuredPatch": [{"oldStart": line, "oldLines": old.count("\n") + 1,
                                          "newStart": line, "newLines": new.count("\n") + 1,
                                          "lines": [f"-{x}" for x in old.split("\n")]
                                          + [f"+{x}" for x in new.split("\n")]}],
                     "userModified": False, "replaceAll": False})
