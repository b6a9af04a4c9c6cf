"""Figures kept by content hash beside the palace: computed once, read back, never trusted when
the file is damaged."""

from __future__ import annotations

import pytest

from palace_lab.errors import StoreError
from palace_lab.store import Palace
from palace_lab.store.memo import FILE, Memo


def test_fill_computes_only_the_missing_keys_and_keeps_them(palace):
    asked = []

    def compute(keys):
        asked.append(list(keys))
        return {k: (len(k), k.upper()) for k in keys}

    memo = Memo(palace, "lengths", "v1", ("n", "upper"))
    assert memo.fill(["ab", "c"], compute) == {"ab": (2, "AB"), "c": (1, "C")}
    assert memo.fill(["c", "def", "ab"], compute) == {"ab": (2, "AB"), "c": (1, "C"),
                                                      "def": (3, "DEF")}
    assert asked == [["ab", "c"], ["def"]]
    assert (palace.derived_root / FILE).is_file()
    again = Memo(Palace.open(palace.path, create=False), "lengths", "v1", ("n", "upper"))
    assert again.get(["def", "zz"]) == {"def": (3, "DEF")}  # another process reads them back
    newer = Memo(palace, "lengths", "v2", ("n", "upper"))
    assert newer.get(["def"]) == {}  # other code, other table, and the older one dropped
    assert Memo(palace, "lengths_more", "v1", ("n",)).get(["x"]) == {}  # not the same kind
    import sqlite3

    with sqlite3.connect(palace.derived_root / FILE) as conn:
        tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"lengths__v2", "lengths_more__v1"}


def test_a_long_fill_is_kept_chunk_by_chunk(palace, monkeypatch):
    import palace_lab.store.memo as memo_module

    monkeypatch.setattr(memo_module, "FILL_CHUNK", 2)
    memo, seen = Memo(palace, "t", "v1", ("n",)), []

    def compute(keys):
        seen.append(len(keys))
        if len(seen) == 3:
            raise KeyboardInterrupt
        return {k: (1,) for k in keys}

    with pytest.raises(KeyboardInterrupt):
        memo.fill([f"k{i}" for i in range(6)], compute)
    assert seen == [2, 2, 2] and len(memo.get(f"k{i}" for i in range(6))) == 4  # 2 chunks kept


def test_a_damaged_file_is_set_aside_and_made_again(palace):
    memo = Memo(palace, "t", "v1", ("n",))
    memo.put({"a": (1,)})
    (palace.derived_root / FILE).write_bytes(b"not a database at all" * 100)
    assert memo.get(["a"]) == {}
    assert (palace.derived_root / f"{FILE}.damaged").is_file()
    assert memo.fill(["a"], lambda keys: {"a": (2,)}) == {"a": (2,)}
    assert memo.get(["a"]) == {"a": (2,)}


def test_a_folder_that_cannot_be_written_costs_time_only(palace, monkeypatch):
    monkeypatch.setattr(Memo, "_connect", lambda self: (_ for _ in ()).throw(PermissionError(13)))
    memo = Memo(palace, "t", "v1", ("n",))
    assert memo.fill(["a"], lambda keys: {"a": (1,)}) == {"a": (1,)}
    assert memo.get(["a"]) == {}


def test_names_are_plain_identifiers(palace):
    with pytest.raises(StoreError, match="lowercase identifiers"):
        Memo(palace, "t; DROP TABLE x", "v1", ("n",))


def test_many_keys_are_read_in_one_pass_with_the_same_answer(palace, monkeypatch):
    import palace_lab.store.memo as memo_module

    memo = Memo(palace, "t", "v1", ("n", "s"))
    memo.put({f"k{i}": (i, f"s{i}") for i in range(10)})
    asked = ["k3", "k9", "absent", "k3"]
    by_lists = memo.get(asked)
    monkeypatch.setattr(memo_module, "SCAN_FROM", 1)
    assert memo.get(asked) == by_lists == {"k3": (3, "s3"), "k9": (9, "s9")}

