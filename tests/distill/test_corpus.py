"""palace_lab.distill.corpus: the corpus statistics of a large palace are kept from run to run
and brought up to date with only what changed; small palaces are always counted whole.

The size rule is lowered (``FULL_FROM``) so a palace of a few exchanges stands for a large one;
every figure is checked against a whole count of the same texts (``corpus_stats``).
"""

from __future__ import annotations

import pytest
from tiny_palace import fill

from palace_lab.distill import corpus
from palace_lab.distill.rules import RulesDistiller
from palace_lab.distill.pipeline import distill_palace
from palace_lab.distill.terms import corpus_stats
from palace_lab.ingest.segment import segment
from palace_lab.model import Conversation, Message


def whole(palace):
    ex = palace.exchanges()
    return corpus_stats((e.verbatim for e in ex), (e.dialogue for e in ex))


def say(palace, cid: str, text: str, *more: str) -> None:
    """One exchange: ``text`` asked, answered, then ``more`` (a session that grew)."""
    replies = ("fixed the ledger rounding", *more)
    msgs = (Message(cid, 0, "user", text, "k0", is_request=True),
            *(Message(cid, i, "assistant", r, f"k{i}") for i, r in enumerate(replies, start=1)))
    conv = Conversation(cid, "palace-jsonl", msgs)
    with palace.transaction() as tx:
        palace.store_conversation(tx, conv, segment(conv))


def same(a, b) -> None:
    assert (a.n_docs, a.term_df, a.stem_df) == (b.n_docs, b.term_df, b.stem_df)
    assert a.dialogue_mean == pytest.approx(b.dialogue_mean)


@pytest.fixture
def large(monkeypatch):
    """Palaces of more than 2 exchanges count as large; a change of up to half is added."""
    monkeypatch.setattr(corpus, "FULL_FROM", 2)
    monkeypatch.setattr(corpus, "RECOUNT_SHARE", 0.5)


def folder(palace):
    return corpus._folder(palace)


def test_a_small_palace_is_counted_whole_and_writes_nothing(palace):
    fill(palace, 3)
    same(corpus.palace_stats(palace), whole(palace))
    assert not folder(palace).exists()


def test_new_exchanges_are_added_to_the_kept_counts(palace, large, monkeypatch):
    fill(palace, 4)
    same(corpus.palace_stats(palace), whole(palace))
    assert (folder(palace) / "meta.json").is_file()
    say(palace, "n1", "TimeoutError in PostingManager")
    counted = []
    real = corpus.corpus_counts

    def spy(texts, dialogues):
        made = real(texts, dialogues)
        counted.append(made[0])  # documents counted
        return made

    monkeypatch.setattr(corpus, "corpus_counts", spy)
    same(corpus.palace_stats(palace), whole(palace))  # additions only: exact
    assert counted == [1]  # one exchange read and counted, not five
    same(corpus.palace_stats(palace), whole(palace))
    assert counted == [1]  # nothing changed: the kept counts, nothing read


def test_a_replaced_exchange_counts_as_a_ghost_until_the_recount(palace, large):
    fill(palace, 4)
    say(palace, "n1", "TimeoutError in PostingManager")
    corpus.palace_stats(palace)
    say(palace, "n1", "TimeoutError in PostingManager", "KeyError in the invoice parser")
    kept = corpus.palace_stats(palace)  # the session grew: its exchange has a new text
    exact = whole(palace)
    assert kept.n_docs == exact.n_docs + 1  # the old text still counts ...
    assert (kept.term_df["timeouterror"], exact.term_df["timeouterror"]) == (2, 1)
    assert kept.term_df["keyerror"] == exact.term_df["keyerror"] == 1  # ... beside the new one
    for i in range(3):  # more changes than half of the 5 counted: counted whole again
        say(palace, f"m{i}", f"deploy step {i}")
    same(corpus.palace_stats(palace), whole(palace))


def test_unreadable_counts_are_counted_again(palace, large):
    fill(palace, 4)
    corpus.palace_stats(palace)
    (folder(palace) / "terms.npy").write_bytes(b"not numpy")
    say(palace, "n1", "TimeoutError in PostingManager")
    same(corpus.palace_stats(palace), whole(palace))
    assert corpus._read(folder(palace)) is not None  # and written afresh


def test_a_run_with_nothing_pending_counts_nothing(palace, monkeypatch):
    fill(palace, 3)
    distill_palace(palace, RulesDistiller())
    monkeypatch.setattr("palace_lab.distill.pipeline.palace_stats",
                        lambda p: pytest.fail("statistics counted for a run with nothing to do"))
    summary = distill_palace(palace, RulesDistiller())
    assert (summary.total, summary.cached) == (0, 3)


def test_pending_exchanges_reads_only_what_is_due_in_conversation_order(palace):
    fill(palace, 4)
    ids = [e.exchange_id for e in palace.exchanges()]
    distill_palace(palace, RulesDistiller(), exchange_ids=ids[1:3])
    version = RulesDistiller().version
    assert [e.exchange_id for e in palace.pending_exchanges(version)] == [ids[0], ids[3]]
    assert [e.exchange_id for e in palace.pending_exchanges(version, ids[2:])] == [ids[3]]
    say(palace, "c1", "request 1", "done", "and more")  # c1 grew: its card is of older text
    assert ids[1] in {e.exchange_id for e in palace.pending_exchanges(version)}
