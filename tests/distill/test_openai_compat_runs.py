"""Whole runs of the openai-compat distiller over a palace: resume, the CLI, and the must-show
(the bundled sample through the stub with broken replies, ``benchmarks/bench_openai_compat.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from openai_stub import OpenAIStub, first_user_text
from test_distill_pipeline import fill

from palace_lab.cli import main
from palace_lab.distill.openai_compat import OpenAICompatDistiller
from palace_lab.distill.pipeline import distill_palace

ROOT = Path(__file__).resolve().parents[2]
MODEL = "llama3.2:1b"


class Interrupted(KeyboardInterrupt):
    pass


def test_an_interrupted_run_resumes_without_sending_anything_twice(palace):
    fill(palace, n=7)
    with OpenAIStub() as stub:
        def stop_after_first_chunk(done, total, outcomes):
            raise Interrupted  # Ctrl-C once the first chunk of cards is stored

        first = OpenAICompatDistiller(model=MODEL, base_url=stub.base_url)
        with pytest.raises(Interrupted):
            distill_palace(palace, first, batch_size=3, progress=stop_after_first_chunk)
        assert palace.count("cards") == 3
        again = distill_palace(palace, OpenAICompatDistiller(model=MODEL, base_url=stub.base_url),
                               batch_size=3)
        sent = [first_user_text(c.body) for c in stub.calls()]
    assert (again.cached, again.made, again.failed) == (3, 4, 0)
    assert len(sent) == 7 and len(set(sent)) == 7  # each exchange asked once, over both runs
    cards = palace.cards(first.version)
    assert sorted(c.exchange_id for c in cards) == sorted(e.exchange_id for e in palace.exchanges())
    assert palace.count("cards") == 7


def test_the_cli_distills_through_a_local_server(palace, tmp_path, capsys):
    fill(palace, n=2)
    db = str(tmp_path / "palace.db")
    with OpenAIStub() as stub:
        code = main(["distill", "--db", db, "--distiller", "openai-compat", "--base-url",
                     stub.base_url, "--model", MODEL, "--concurrency", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["made"] == 2 and out["cost_usd"] == 0
    assert out["distiller"].startswith(f"openai-compat:{MODEL}:")
    code = main(["distill", "--db", db, "--base-url", stub.base_url])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and err == [
        "palace-lab: error: the rules distiller does not take base_url; its options: "
        "budget_tokens, context_chars, core_chars, request_share, repeat_weight, mean_tokens, "
        "min_share, max_share, core_share, min_core"]


def test_must_show_the_sample_through_a_stub_with_broken_replies(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_openai_compat import PLANTED, SCENARIOS, run

    sample = ROOT / "sample_data"
    # 0.8 s: the stub's slow replies (2 s) time out, a valid reply on a loaded machine does not
    figures = run(sample, tmp_path, timeout_s=0.8)
    assert figures["exchanges"] > len(SCENARIOS) and figures["exchanges_without_card"] == 0
    assert figures["cards"] == figures["exchanges"]
    assert figures["version_names_model"] and "qwen2.5:1.5b-instruct" in figures["version"]
    assert figures["secrets_in_requests"] == 0
    assert set(figures["secrets_redacted"]) == set(PLANTED)
    assert figures["response_format"] == "json_object" and figures["declined_formats"] == ["json_schema"]
    assert figures["fallbacks"] >= figures["scenarios"]["no_json"] > 0
    assert figures["repair_turns"] > 0 and figures["cost_usd"] == 0


def test_the_load_page_distills_with_a_model_the_server_lists(palace, tmp_path, monkeypatch):
    from app_pages import clean, start

    fill(palace, n=3)
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "palace.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    with OpenAIStub(models=("qwen2.5:0.5b-instruct", MODEL)) as stub:
        at = start("pages/load.py")
        at.radio(key="load_backend").set_value("openai-compat").run()
        at.text_input(key="load_url").set_value(stub.base_url + "/v1").run()
        clean(at)
        assert at.selectbox(key="load_local_model").options == ["llama3.2:1b", "qwen2.5:0.5b-instruct"]
        at.selectbox(key="load_local_model").set_value(MODEL).run()
        assert any(f"openai-compat:{MODEL}:" in c.value and "3 pending" in c.value for c in at.caption)
        at.button(key="load_distill").click().run()
        clean(at)
        assert "3 cards made" in at.success[0].value and "0 fallbacks" in at.success[0].value
        assert len(stub.calls()) == 3
        at.text_input(key="load_url").set_value("http://127.0.0.1:9/v1").run()
    assert not at.exception  # an unreachable server: one clear line, and a field to type in
    assert any("No model list: cannot list the models" in c.value for c in at.caption)
    assert [e.value for e in at.error] == [
        "the openai-compat backend needs a model name; the server's /v1/models lists them"]
    at.text_input(key="load_local_model_name").set_value(MODEL).run()
    clean(at)
