"""No secret reaches a card, a pack or an LLM backend; the verbatim layer keeps the original."""

from __future__ import annotations

import json

from conftest import write_jsonl
from palace_lab.cli import main
from palace_lab.llm.batches import MessageBatches
from palace_lab.llm.client import LLMClient, Tool
from palace_lab.model import DistilledCard, Room
from palace_lab.redact import redact_card
from redaction_table import SECRET_ROWS

SID = "7a1d0000-0000-4000-8000-0000000000dd"


def bare(secret: str) -> str:
    return secret.strip("'\"")


def planted_session(tmp_path):
    records = []
    for i, (kind, secret, line) in enumerate(SECRET_ROWS):
        text = f"Fix the deploy of service {i}: " + line.format(s=secret)
        records.append({"type": "user", "uuid": f"u{i}", "sessionId": SID,
                        "timestamp": f"2026-09-01T10:{i % 60:02d}:00Z",
                        "message": {"role": "user", "content": text}})
        records.append({"type": "assistant", "uuid": f"a{i}", "sessionId": SID,
                        "timestamp": f"2026-09-01T10:{i % 60:02d}:30Z",
                        "message": {"role": "assistant", "id": f"m{i}", "content": [
                            {"type": "text", "text": f"Set {line.format(s=secret)} in "
                                                     f"config/{bare(secret)[:12]}.env"}]}})
    return write_jsonl(tmp_path / f"{SID}.jsonl", records)


def test_cards_and_packs_carry_no_planted_secret(tmp_path, capsys):
    db = str(tmp_path / "p.db")
    assert main(["ingest", str(planted_session(tmp_path)), "--db", db]) == 0
    assert main(["distill", "--db", db]) == 0
    capsys.readouterr()
    assert main(["cards", "--db", db, "--json"]) == 0
    cards = capsys.readouterr().out
    out = tmp_path / "pack.md"
    assert main(["pack", "--db", db, "--budget", "20000", "--out", str(out)]) == 0
    pack = out.read_text("utf-8")
    for kind, secret, _ in SECRET_ROWS:
        for piece in {bare(secret), bare(secret)[-20:], bare(secret)[:20]}:
            assert piece not in cards, kind
            assert piece not in pack, kind
    assert "[REDACTED:" in cards
    capsys.readouterr()
    assert main(["exchanges", "--db", db, "--json"]) == 0  # the verbatim layer is the original
    assert bare(SECRET_ROWS[0][1])[:20] in json.dumps(json.loads(capsys.readouterr().out))


def test_every_card_field_is_redacted():
    [secret] = [bare(s) for kind, s, _ in SECRET_ROWS if kind == "stripe_key"][:1]
    card = DistilledCard("x1", "v", f"core {secret}", f"ctx {secret}",
                         (Room("concept", f"k-{secret}", f"label {secret}", 0.5),),
                         (f"src/{secret}/a.py",), keywords=(secret, "deploy"))
    cleaned, counts = redact_card(card)
    assert secret not in json.dumps(cleaned.to_dict())
    assert cleaned.keywords == ("deploy",)  # a keyword holding a secret is dropped
    assert counts == {"stripe_key": 6}
    plain = DistilledCard("x1", "v", "core", "ctx", (), ("src/a.py",))
    assert redact_card(plain) == (plain, {})


def test_everything_sent_to_the_llm_passes_the_redactor():
    client = LLMClient(api_key="test-key")
    secrets = [bare(s) for _, s, _ in SECRET_ROWS]
    text = "\n".join(line.format(s=s) for _, s, line in SECRET_ROWS)
    params = client.message_params(
        ["fixed instructions", {"type": "text", "text": text}],
        [{"role": "user", "content": text},
         {"role": "user", "content": [{"type": "text", "text": text},
                                      {"type": "tool_result", "tool_use_id": "t",
                                       "content": text}]}],
        Tool({"type": "object"}))
    sent = json.dumps(params)
    assert not [s for s in secrets if s in sent]
    assert params["system"][0]["text"] == "fixed instructions"


def test_a_batch_built_elsewhere_is_redacted_before_it_is_sent():
    client = LLMClient(api_key="test-key", max_cost_usd=100.0)
    secret = bare(SECRET_ROWS[0][1])
    sent = {}

    class Batches:
        def create(self, requests):
            sent["requests"] = requests
            return type("Batch", (), {"id": "b1"})()

    client._sdk_client = type("SDK", (), {"messages": type("M", (), {"batches": Batches()})()})()
    MessageBatches(client).submit([{"custom_id": "x1", "params": {
        "model": "claude-haiku-4-5", "max_tokens": 10, "system": f"key {secret}",
        "messages": [{"role": "user", "content": f"the key is {secret}"}]}}])
    assert secret not in json.dumps(sent["requests"])


def test_cards_stored_before_a_rule_existed_are_redacted_on_the_way_out(tmp_path, capsys):
    from palace_lab.distill.base import DistillOutcome

    db = tmp_path / "p.db"
    history = write_jsonl(tmp_path / "h.jsonl", [
        {"conversation_id": "c", "role": "user", "content": "rotate the key"}])
    assert main(["ingest", str(history), "--db", str(db)]) == 0
    from palace_lab.store import Palace

    secret = [bare(s) for kind, s, _ in SECRET_ROWS if kind == "sendgrid_api_key"][0]
    with Palace.open(db) as palace:
        [exchange] = palace.exchanges()
        palace.register_distiller("old:v1", "rules")
        palace.put_cards([DistillOutcome(DistilledCard(exchange.exchange_id, "old:v1",
                                                       f"rotated {secret}", "ctx", (), ()))],
                         {exchange.exchange_id: exchange.hash})
    capsys.readouterr()
    assert main(["cards", "--db", str(db), "--json"]) == 0
    out = capsys.readouterr().out
    assert secret not in out and "[REDACTED:sendgrid_api_key]" in out
    # One read path (redact.stored_card) for the CLI, MCP's card_dict and the app's card.
    from palace_lab.agent.recall import card_dict
    from palace_lab.redact import stored_card

    with Palace.open(db) as palace:
        [card] = palace.cards("old:v1")
    assert card_dict(card)["core"] == json.loads(out)[0]["exchange_core"] == \
        stored_card(card).exchange_core == "rotated [REDACTED:sendgrid_api_key]"
    assert card_dict(None) is None and stored_card(None) is None


def test_mcp_pages_and_previews_carry_no_planted_secret(tmp_path):
    from palace_lab.agent.recall import Recall

    db = str(tmp_path / "p.db")
    assert main(["ingest", str(planted_session(tmp_path)), "--db", db]) == 0
    recall = Recall.open(db, embedder="fake")
    try:
        ids = [e.exchange_id for e in recall.palace.exchanges()]
        pages = [recall.exchange(eid, limit=20_000)["text"] for eid in ids]
        hits = recall.search("fix the deploy of service", mode="bm25:verbatim", k=100)["hits"]
    finally:
        recall.close()
    answers = json.dumps(pages) + json.dumps([h["preview"] for h in hits])
    assert len(pages) == len(SECRET_ROWS) and len(hits) == len(SECRET_ROWS)
    for kind, secret, _ in SECRET_ROWS:
        assert json.dumps(bare(secret))[1:-1] not in answers, kind
    assert "[REDACTED:azure_sas_signature]" in answers
