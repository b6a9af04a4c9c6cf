"""The OpenAI-compatible distiller on the bundled sample, through a local stub with broken replies.

Builds the sample palace as ``./lab app`` does (``sample_data/claude_code``, ``codex``,
``chatgpt``) plus one planted conversation holding four secrets, serves the chat-completions
stub of ``tests/openai_stub.py`` on 127.0.0.1 and distills every exchange with
``--distiller openai-compat``. The stub is a server that declines ``response_format``
``json_schema`` (``json_object`` only) and answers the exchanges in turn with one of these
scenarios:

- ``valid``: a valid card;
- ``broken_json``: a cut-off JSON object, then a valid card to the repair turn;
- ``chatty``: a valid card inside words and a ```json fence (no repair needed);
- ``http_500``: a 500, then a valid card to the retry;
- ``timeout``: an answer slower than the client's timeout, then a valid card to the retry;
- ``schema_violation``: an object that breaks the card schema, then a valid card to the repair;
- ``no_json``: prose twice: the exchange gets a fallback card, marked as such.

Printed: exchanges and cards (every exchange must have exactly one card of the version), the
version (it names the model), fallbacks, repair turns, retries, the response format the client
settled on, requests sent, and the planted secrets found in any request body (must be 0).
No model runs here: the figures show the plumbing, not card quality or speed.

    .venv/bin/python benchmarks/bench_openai_compat.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL = "qwen2.5:1.5b-instruct"
SCENARIOS = ("valid", "broken_json", "chatty", "http_500", "timeout", "schema_violation",
             "no_json")
PLANTED = {
    "anthropic_api_key": "sk-ant-api03-" + "Hq4" * 20,
    "aws_access_key": "AKIA" + "J5W9" * 4,
    "url_password": "c0rrect-h0rse-77",
    "env_secret": "pl4nted-" + "7e" * 10,
}


def _stub_module():
    sys.path.insert(0, str(ROOT / "tests"))
    import openai_stub

    return openai_stub


def planted_conversation(folder: Path) -> Path:
    """One palace-JSONL conversation whose request and tool output carry the secrets."""
    lines = [
        ("user", "The deploy fails with 403. My .env:\nANTHROPIC_API_KEY="
                 f"{PLANTED['anthropic_api_key']}\nDB_PASSWORD={PLANTED['env_secret']}"),
        ("assistant", "Let me check the remote: git remote -v"),
        ("tool", f"origin https://deploy:{PLANTED['url_password']}@git.example.com/app.git"),
        ("assistant", f"The AWS key AKIA… in ~/.aws is {PLANTED['aws_access_key']}; rotate it."),
    ]
    path = folder / "planted.jsonl"
    path.write_text("".join(json.dumps({"conversation_id": "planted-secrets", "role": r,
                                        "content": c, "project": "planted"}) + "\n"
                            for r, c in lines), "utf-8")
    return path


def behaviours(stub, scenario: str) -> list:
    """What the stub answers one exchange's requests with, in order."""
    bad_room = {"room_type": "place", "room_key": "Bad Key", "room_label": "x", "relevance": 2}
    return {
        "valid": [stub.card()],
        "broken_json": [stub.raw('{"exchange_core": "Fixed the'), stub.card()],
        "chatty": [stub.wrapped()],
        "http_500": [stub.error(500), stub.card()],
        "timeout": [stub.slow(2.0), stub.card()],
        "schema_violation": [stub.answer({"exchange_core": "x", "specific_context": "",
                                          "room_assignments": [bad_room]}), stub.card()],
        "no_json": [stub.raw("I would rather not."), stub.raw("Still no JSON, sorry.")],
    }[scenario]


def run(sample_dir: Path, workdir: Path, *, timeout_s: float = 0.5) -> dict:
    """Ingest, distill through the stub, and return the figures (see the module docstring)."""
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    stub = _stub_module()
    folders = [sample_dir / d for d in ("claude_code", "codex", "chatgpt")]
    with Palace.open(workdir / "palace.db") as palace, \
            stub.OpenAIStub(formats=("json_object",), models=(MODEL,)) as server:
        ingest_paths(palace, [*folders, planted_conversation(workdir)])
        exchanges = palace.exchanges()
        plan = [SCENARIOS[i % len(SCENARIOS)] for i in range(len(exchanges))]
        for scenario in plan:
            server.push(*behaviours(stub, scenario))
        distiller = get_distiller("openai-compat", model=MODEL, base_url=server.base_url,
                                  timeout=timeout_s, backoff_base_s=0.01)
        start = time.perf_counter()
        summary = distill_palace(palace, distiller, batch_size=8, keep=keep_budget)
        seconds = time.perf_counter() - start
        cards = palace.cards(distiller.version)
        sent = [r.raw for r in server.calls()]
        llm = distiller.client()
        return {
            "exchanges": len(exchanges),
            "cards": len(cards),
            "exchanges_without_card": len({e.exchange_id for e in exchanges}
                                          - {c.exchange_id for c in cards}),
            "version": distiller.version,
            "version_names_model": distiller.version.startswith(f"openai-compat:{MODEL}:"),
            "fallbacks": sum(c.fallback for c in cards),
            "scenarios": {s: plan.count(s) for s in SCENARIOS},
            "requests": len(sent),
            "repair_turns": sum(len(json.loads(r)["messages"]) == 4 for r in sent),
            "response_format": llm.response_format,
            "declined_formats": sorted(llm.declined),
            "secrets_planted": len(PLANTED),
            "secrets_redacted": summary.redactions,
            "secrets_in_requests": sum(s.encode() in r for s in PLANTED.values() for r in sent),
            "cost_usd": summary.cost_usd,
            "seconds": round(seconds, 2),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=Path, default=ROOT / "sample_data")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_openai_") as tmp:
        figures = run(args.sample, Path(tmp))
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    width = max(map(len, figures))
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
