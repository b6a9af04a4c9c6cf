"""The Sessions table of a large palace compresses a seeded sample of its sessions, the same
on every visit, and says how many of how many (all 14,685 sessions of a 50,000-exchange palace
took 140 s)."""

from __future__ import annotations

import lab_palaces
from palace_lab.lifecycle import report


def test_a_seeded_sample_in_palace_order(tmp_path):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        every, total = report.session_ids(palace)
        assert total == len(every) > 2
        some, of = report.session_ids(palace, sample=2)
        assert of == total and len(some) == 2
        assert some == [cid for cid in every if cid in some]  # palace order
        assert report.session_ids(palace, sample=2) == (some, of)  # the same sample again
        assert report.session_ids(palace, sample=total + 5) == (every, total)
        done = report.compress_all(palace, sample=2)
        assert {m: [r.conversation_id for r in rs] for m, rs in done.items()} == \
            {m: some for m in report.METHODS}
