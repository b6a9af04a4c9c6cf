"""Can a person read the cards, and do they keep what people ask about? Measured, per set.

    .venv/bin/python benchmarks/card_quality.py [--keep DIR] [--distiller VERSION] [--json]
    .venv/bin/python benchmarks/card_quality.py --draw 20 --keep DIR --before OLD_DIR

Sets: the bundled sample; DevMemBench and the LoCoMo dev half (``../shared/benchmarks``); the
real transcripts of ``../shared/real_exports`` and ``../shared/real_histories``. A set whose
folder is absent is skipped with a note. Each set is ingested into a palace and distilled with
the default distiller (``--keep DIR`` keeps the palaces and reuses them; ``--distiller`` reads
the cards of another version already in them). About two minutes on 2 cores.

Definitions (one card per exchange; "core" is ``exchange_core``):

- **whole**: every part of the core (its sentences, :func:`palace_lab.distill.clauses.core_parts`)
  is a whole sentence or clause run of the exchange's prose: it starts and ends at a sentence
  or clause boundary of the source and nothing is dropped inside
  (:func:`palace_lab.distill.clauses.is_whole`, case and spacing aside).
- **empty opening**: the core's first part has fewer than two content words ("hi", "continue",
  "implement", "what else?"; :func:`palace_lab.text.content.is_content_free`); *avoidable*:
  of those, the ones whose dialogue has a sentence with content the core could have opened
  with (the rest are exchanges in which nobody wrote anything with content: "OK, continue",
  then tool calls only).
- **outcome**: of the exchanges whose last message is the agent's prose (it wrote after its
  last tool call), the share whose core has a part taken whole from that final report.
- **noise keywords**: the share of all keywords that are noise by
  :func:`palace_lab.distill.noise.is_noise` (bare numbers and number fragments, hex runs, CSS
  values, HTTP header names, minified or encoded fragments).
- **max/mean**, **>4x**: the largest searched card (core + context + keywords, cl100k_base
  tokens) over the set's mean, and the share of cards over 4x the mean; **empty**: cards with
  no core.
- **answer kept** (LoCoMo): of the questions whose answer's content words all occur in the
  verbatim text of one of its evidence exchanges, the share for which they all occur in that
  exchange's searched card too (words compared by their BM25 stem). DevMemBench: the same with
  the ground truth and any exchange of a gold session.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SAMPLE_PARTS = ("claude_code", "codex", "chatgpt")
SETS = ("sample", "devmembench", "locomo", "real_exports", "real_histories")
TARGETS = {"whole": (">=", 0.95), "empty_opening": ("<=", 0.01), "noise_keywords": ("<=", 0.01),
           "over_4x": ("<=", 0.0), "empty": ("<=", 0), "answer_kept": (">=", 0.90)}


def build(name: str, folder: Path, distill: bool = True):
    """The set's palace in ``folder`` (reused when there), ingested and distilled (unless
    ``distill`` is False: the cards of another version are read); its bench."""
    from palace_lab.bench import build_palace, load_benchmark
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    db = folder / f"{name}.db"
    if name in ("devmembench", "locomo"):
        bench = load_benchmark(SHARED / "benchmarks" / name)
        if db.exists():
            palace = Palace.open(db)
            if distill:
                distill_palace(palace, get_distiller("rules"), keep=keep_budget)
            return palace, bench
        return build_palace(bench, db), bench
    roots = ([ROOT / "sample_data" / p for p in SAMPLE_PARTS] if name == "sample"
             else [SHARED / name])
    fresh = not db.exists()
    palace = Palace.open(db, create=True)
    if fresh:
        ingest_paths(palace, roots)
    if distill or fresh:
        distill_palace(palace, get_distiller("rules"), keep=keep_budget)
    return palace, None


def available(name: str) -> str | None:
    """Why the set cannot be measured here, or None."""
    folder = {"sample": ROOT / "sample_data", "devmembench": SHARED / "benchmarks" / "devmembench",
              "locomo": SHARED / "benchmarks" / "locomo"}.get(name, SHARED / name)
    return None if folder.is_dir() else f"{folder} not found"


def final_report(verbatim: str) -> str:
    """The agent's prose after its last tool call (the distiller's own rule)."""
    from palace_lab.distill.rules import final_report as report_of
    from palace_lab.ingest.segment import split_messages

    return report_of(split_messages(verbatim))


def card_rows(palace, version: str) -> list[tuple]:
    from palace_lab.tokens import count_tokens

    cards = palace.card_map(version)
    exchanges = [e for e in palace.exchanges() if e.exchange_id in cards]
    sizes = count_tokens([cards[e.exchange_id].search_text for e in exchanges])
    return [(e, cards[e.exchange_id], n) for e, n in zip(exchanges, sizes)]


def readability(rows: list[tuple]) -> dict:
    from palace_lab.distill.clauses import core_parts, is_whole, sentences
    from palace_lab.text.content import is_content_free
    from palace_lab.distill.noise import is_noise

    whole = opening = avoidable = with_final = with_outcome = empty = 0
    keywords = noise = 0
    for exchange, card, _ in rows:
        parts = core_parts(card.exchange_core)
        empty += not parts
        whole += bool(parts) and all(is_whole(p, exchange.verbatim) for p in parts)
        free = bool(parts) and is_content_free(parts[0])
        opening += free
        avoidable += free and any(not is_content_free(s) for s in sentences(exchange.dialogue))
        report = final_report(exchange.verbatim)
        if report and sentences(report):
            with_final += 1
            with_outcome += any(is_whole(p, report) for p in parts)
        keywords += len(card.keywords)
        noise += sum(map(is_noise, card.keywords))
    n = len(rows) or 1
    sizes = [size for _, _, size in rows]
    mean = statistics.fmean(sizes) if sizes else 0
    return {"cards": len(rows), "whole": whole / n, "empty_opening": opening / n,
            "empty_opening_avoidable": avoidable / n,
            "outcome": with_outcome / with_final if with_final else None,
            "final_reports": with_final, "noise_keywords": noise / keywords if keywords else 0.0,
            "keywords": keywords, "mean_tokens": round(mean, 1),
            "max_over_mean": round(max(sizes) / mean, 2) if mean else None,
            "over_4x": sum(s > 4 * mean for s in sizes) / n, "empty": empty}


def _stems(text: str) -> set[str]:
    from palace_lab.distill.keywords import stem
    from palace_lab.distill.terms import terms

    return {stem(t) for t in terms(text)}


def answers(name: str) -> dict[str, str]:
    """``{query_id: answer}`` from the benchmark's own files."""
    folder = SHARED / "benchmarks" / name
    if name == "devmembench":
        data = json.loads((folder / "questions.json").read_text("utf-8"))
        return {str(q["questionId"]): str(q.get("groundTruth", "")) for q in data}
    samples = json.loads((folder / "locomo10_dev.json").read_text("utf-8"))
    return {f"locomo_{i}_qa{j}": str(qa.get("answer", ""))
            for i, s in enumerate(samples) for j, qa in enumerate(s.get("qa") or [])}


def answer_kept(bench, rows: list[tuple]) -> dict:
    """The definition in the module docstring, over the bench's questions."""
    from palace_lab.bench import qrels_for

    qrels = qrels_for(bench.questions, [e for e, _, _ in rows])
    by_id = {e.exchange_id: (_stems(e.verbatim), _stems(c.search_text)) for e, c, _ in rows}
    told = answers(bench.name)
    findable = kept = 0
    for q in bench.questions:
        want = _stems(told.get(q.query_id, ""))
        gold = [by_id[x] for x in qrels.get(q.query_id, {}) if x in by_id]
        if not want or not any(want <= verbatim for verbatim, _ in gold):
            continue
        findable += 1
        kept += any(want <= verbatim and want <= card for verbatim, card in gold)
    return {"answer_kept": kept / findable if findable else None, "answerable": findable}


def measure(name: str, folder: Path, version: str | None) -> dict:
    palace, bench = build(name, folder, distill=version is None)
    version = version or palace.latest_distiller()
    rows = card_rows(palace, version)
    out = {"set": name, "distiller": version, "exchanges": palace.count("exchanges"),
           **readability(rows)}
    if bench is not None:
        out.update(answer_kept(bench, rows))
    palace.close()
    return out


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def render(results: list[dict]) -> str:
    head = ("| set | cards | whole | empty opening (avoidable) | outcome | noise kw | mean tok "
            "| max/mean | >4x | empty | answer kept |")
    lines = [head, "|" + "---|" * 11]
    for r in results:
        if "skipped" in r:
            lines.append(f"| {r['set']} | skipped: {r['skipped']} |" + " |" * 9)
            continue
        lines.append(
            f"| {r['set']} | {r['cards']} | {_pct(r['whole'])} | {_pct(r['empty_opening'])} "
            f"({_pct(r['empty_opening_avoidable'])}) | "
            f"{_pct(r['outcome'])} | {_pct(r['noise_keywords'])} | {r['mean_tokens']} | "
            f"{r['max_over_mean']} | {_pct(r['over_4x'])} | {r['empty']} | "
            f"{_pct(r.get('answer_kept'))} |")
    lines.append("")
    lines.append("targets: whole >= 95%, empty opening <= 1%, noise keywords <= 1%, no card over "
                 "4x the mean, no empty card, answer kept >= 90%")
    return "\n".join(lines)


DRAW_SETS = ("real_histories", "real_exports", "sample")


def draw_cards(after: Path, before: Path, n: int, seed: int = 0) -> str:
    """``n`` cards drawn with ``seed`` from :data:`DRAW_SETS`, the newest card of each palace
    in ``after`` beside the card of the same exchange in ``before`` (palaces kept by an older
    version's run), each under the first 200 characters of its request (redacted)."""
    import random

    from palace_lab.redact import redact_text
    from palace_lab.store import Palace

    pool = []
    for name in DRAW_SETS:
        if not (after / f"{name}.db").exists():
            continue
        new, old = Palace.open(after / f"{name}.db"), Palace.open(before / f"{name}.db")
        new_cards = new.card_map(new.latest_distiller())
        old_cards = old.card_map(old.latest_distiller())
        for e in new.exchanges():
            if e.exchange_id in new_cards and e.exchange_id in old_cards:
                pool.append((name, e, old_cards[e.exchange_id], new_cards[e.exchange_id]))
    picked = sorted(random.Random(seed).sample(pool, min(n, len(pool))),
                    key=lambda p: (DRAW_SETS.index(p[0]), p[1].exchange_id))
    out = []
    for i, (name, e, old, new) in enumerate(picked, 1):
        request = " ".join(redact_text(e.request).split())[:200]
        out += [f"### {i}. {name} · `{e.exchange_id}`", "", f"> {request}", "",
                "| | before (`%s`) | after (`%s`) |" % (old.distiller, new.distiller),
                "|---|---|---|"]
        for field in ("exchange_core", "specific_context"):
            out.append(f"| {field} | {_cell(getattr(old, field))} | {_cell(getattr(new, field))} |")
        out.append(f"| keywords | {_cell(' · '.join(old.keywords))} | "
                   f"{_cell(' · '.join(new.keywords))} |")
        out.append("")
    return "\n".join(out)


def _cell(text: str) -> str:
    from palace_lab.redact import redact_text

    return redact_text(text).replace("|", "\\|").replace("\n", " ") or "—"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", help="a folder to keep (and reuse) the palaces in")
    parser.add_argument("--distiller", help="a card version already in the palaces")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--draw", type=int, metavar="N",
                        help="print N cards drawn with a fixed seed, before (--before DIR) and "
                             "after (--keep DIR), instead of the table")
    parser.add_argument("--before", help="palaces kept by an older version's --keep run")
    args = parser.parse_args(argv)
    if args.draw:
        if not (args.keep and args.before):
            parser.error("--draw needs --keep (after) and --before (before)")
        print(draw_cards(Path(args.keep), Path(args.before), args.draw))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        results = []
        for name in args.sets.split(","):
            why = available(name)
            if why:
                print(f"card_quality: {name} skipped: {why}", file=sys.stderr)
                results.append({"set": name, "skipped": why})
                continue
            results.append(measure(name, folder, args.distiller))
    print(json.dumps(results, indent=2) if args.json else render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
