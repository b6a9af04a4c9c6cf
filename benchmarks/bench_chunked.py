"""Does a chunked verbatim layer (max cosine over windows) pay against one truncated vector?

all-MiniLM-L6-v2 reads at most 256 word pieces, ``[CLS]`` and ``[SEP]`` included, so the tail
of a long exchange (tool output, code) is invisible to ``hnsw:verbatim``. The chunked layer
embeds each exchange's verbatim text in windows of at most 254 content pieces (plus the two
markers = the model's 256) overlapping by 32, and scores an exchange by the largest cosine of
the query with any of its windows (:func:`max_over_chunks`). A text of at most 254 pieces is
one window, equal to the truncated text, so only long exchanges can change rank.

On the bundled sample (graded queries, nDCG@10 at grade 2 as ``choose_default.py`` uses),
DevMemBench (session-level relevance, any exchange of a gold session) and the LoCoMo dev half
(errata applied, 760 questions) it prints the share of exchanges past 256 pieces, windows per
exchange (mean, max: the embedding-time and index-size ratio), and MRR@10, recall@10 and
nDCG@10 of both layers with exact (flat cosine) search, each question in its scope. Vectors go
through the palace's embedding cache (content hash + embedder name), windows included; with
``--folder`` the palaces are kept there, so a rerun embeds nothing (default: a temp folder).

    .venv/bin/python benchmarks/bench_chunked.py [--sets sample,devmembench,locomo] [--folder DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import choose_default as cd  # noqa: E402

LIMIT, OVERLAP, MARKERS = 256, 32, 2
CUTOFF, DEPTH = 10, 50
SETS = ("sample", "devmembench", "locomo")
Pieces = Callable[[str], list[tuple[int, int]]]


def minilm_pieces() -> Pieces:
    """The character span of each word piece of a text, by the model's own tokenizer."""
    from tokenizers import Tokenizer

    from palace_lab.index.embed import minilm_folder

    tok = Tokenizer.from_file(str(minilm_folder() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return lambda text: list(tok.encode(text, add_special_tokens=False).offsets)


def chunks(text: str, pieces: Pieces, *, limit: int = LIMIT, overlap: int = OVERLAP) -> list[str]:
    """``text`` in windows of at most ``limit - 2`` word pieces, consecutive ones sharing
    ``overlap`` pieces; a text that fits is its one window. Windows are cut from the text at
    piece boundaries, so each re-tokenises to the pieces it was cut from."""
    spans, size = pieces(text), limit - MARKERS
    if len(spans) <= size:
        return [text]
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be in [0, {size}), got {overlap}")
    out, start = [], 0
    while True:
        end = min(start + size, len(spans))
        out.append(text[spans[start][0]:spans[end - 1][1]])
        if end == len(spans):
            return out
        start = end - overlap


def max_over_chunks(queries: np.ndarray, windows: np.ndarray, owner: Sequence[int]) -> np.ndarray:
    """``(queries, exchanges)`` scores: each exchange's largest cosine over its windows.
    ``owner[i]`` is the exchange of window ``i``; windows of one exchange are contiguous."""
    owner = np.asarray(owner)
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    return np.maximum.reduceat(queries @ windows.T, starts, axis=1)


def layer(palace, embedder, pieces: Pieces | None):
    """Exchange ids, their projects, window vectors and each window's exchange position."""
    from palace_lab.index.embed import embed_texts

    exchanges = palace.exchanges()
    texts, owner = [], []
    for i, e in enumerate(exchanges):
        parts = chunks(e.verbatim, pieces) if pieces else [e.verbatim]
        texts += parts
        owner += [i] * len(parts)
    return ([e.exchange_id for e in exchanges], [e.project for e in exchanges],
            embed_texts(palace, embedder, texts), owner)


def flat_run(dev: dict, embedder, built) -> dict:
    """``{query_id: {exchange_id: score}}`` to ``DEPTH`` by exact cosine, each in its scope."""
    ids, projects, vectors, owner = built
    run = {}
    for scope, texts in dev["groups"].items():
        qids = list(texts)
        scores = max_over_chunks(embedder.embed_batch([texts[q] for q in qids]), vectors, owner)
        allowed = np.array([scope is None or p == scope for p in projects])
        scores[:, ~allowed] = -np.inf
        for row, q in enumerate(qids):
            top = np.argsort(-scores[row], kind="stable")[:DEPTH]
            run[q] = {ids[j]: float(scores[row, j]) for j in top if allowed[j]}
    return run


def cost(palace, pieces: Pieces) -> dict:
    texts = [e.verbatim for e in palace.exchanges()]
    counts = [len(chunks(t, pieces)) for t in texts]
    long = sum(len(pieces(t)) > LIMIT - MARKERS for t in texts)
    return {"exchanges": len(texts), "long_share": long / len(texts),
            "windows_mean": sum(counts) / len(counts), "windows_max": max(counts)}


def quality(dev: dict, run: dict) -> dict:
    from palace_lab.evaluate.metrics import evaluate

    cut = {q: dict(sorted(s.items(), key=lambda i: (-i[1], i[0]))[:CUTOFF]) for q, s in run.items()}
    return evaluate(dev["qrels"], cut, (f"mrr@{CUTOFF}", f"recall@{CUTOFF}", f"ndcg@{CUTOFF}"),
                    rel_level=dev["rel"])


def measure(dev: dict, embedder, pieces: Pieces) -> dict:
    out = {"cost": cost(dev["palace"], pieces)}
    for name, p in (("truncated", None), ("chunked", pieces)):
        out[name] = quality(dev, flat_run(dev, embedder, layer(dev["palace"], embedder, p)))
    return out


def main(argv=None) -> int:
    import torch

    from palace_lab.index.embed import MiniLMEmbedder
    from palace_lab.settings import offline

    offline()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--folder", type=Path, help="keep the palaces (and their vectors) here")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    embedder, pieces, report = MiniLMEmbedder(threads=args.threads), minilm_pieces(), {}
    with tempfile.TemporaryDirectory(prefix="palace-chunked-") as tmp:
        folder = args.folder or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for name in args.sets.split(","):
            if name != "sample" and not (cd.SHARED / name).is_dir():
                print(f"skipped {name}: not at {cd.SHARED / name}", file=sys.stderr)
                continue
            print(f"{name}: ingest, distill, embed", file=sys.stderr)
            dev = cd.sample_set(folder) if name == "sample" else cd.bench_set(name, folder)
            report[name] = {"questions": len(dev["qrels"]), **measure(dev, embedder, pieces)}
            dev["palace"].close()
    print(json.dumps(report, indent=1) if args.json else render(report))
    return 0


def render(report: dict) -> str:
    lines = ["| set | questions | exchanges > 256 pieces | windows/exchange (mean, max) | layer | "
             "MRR@10 | recall@10 | nDCG@10 |", "|---|---|---|---|---|---|---|---|"]
    for name, r in report.items():
        c = r["cost"]
        for layer_name in ("truncated", "chunked"):
            m = r[layer_name]
            lines.append(f"| {name} | {r['questions']} | {c['long_share']:.1%} | "
                         f"{c['windows_mean']:.2f}, {c['windows_max']} | {layer_name} | "
                         f"{m['mrr@10']:.3f} | {m['recall@10']:.3f} | {m['ndcg@10']:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
