"""Index cache folders: published whole or not at all, found by name, older contents pruned."""

from __future__ import annotations

import pytest

from palace_lab.index import cache


def save_one(folder):
    (folder / "index.bin").write_text("x")


def test_publish_then_find(tmp_path):
    name = cache.folder_name("core", "bm25", "slot1", "c" * 40)
    assert name == "core~bm25~slot1~cccccccccccc" and cache.find(tmp_path, name) is None
    folder = cache.publish(tmp_path, name, ["a", "b"], {"n": 2}, save_one)
    assert cache.find(tmp_path, name) == folder
    assert cache.read_ids(folder) == ["a", "b"] and cache.read_meta(folder) == {"n": 2}


def test_a_failed_build_leaves_nothing_behind(tmp_path):
    def broken(folder):
        (folder / "half").write_text("x")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        cache.publish(tmp_path, "core~bm25~s~c1", [], {}, broken)
    assert list(tmp_path.iterdir()) == []


def test_a_folder_without_meta_is_an_unfinished_build(tmp_path):
    (tmp_path / "core~bm25~s~c1").mkdir()
    assert cache.find(tmp_path, "core~bm25~s~c1") is None
    assert cache.previous(tmp_path, "core~bm25~s~c2") is None


def test_a_new_content_prunes_the_old_one_of_its_slot_only(tmp_path):
    cache.publish(tmp_path, "core~bm25~s~c1", [], {}, save_one)
    cache.publish(tmp_path, "core~hnsw~s~c1", [], {}, save_one)
    assert cache.previous(tmp_path, "core~bm25~s~c2").name == "core~bm25~s~c1"
    cache.publish(tmp_path, "core~bm25~s~c2", [], {}, save_one)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["core~bm25~s~c2", "core~hnsw~s~c1"]


def test_publish_keeps_a_finished_twin_and_replace_swaps_it(tmp_path):
    first = cache.publish(tmp_path, "core~bm25~s~c1", ["a"], {"v": 1}, save_one)
    cache.publish(tmp_path, "core~bm25~s~c1", ["b"], {"v": 2}, save_one)
    assert cache.read_meta(first) == {"v": 1}  # another process's build is kept
    cache.replace(tmp_path, "core~bm25~s~c1", ["c"], {"v": 3}, save_one)
    assert cache.read_ids(first) == ["c"] and len(list(tmp_path.iterdir())) == 1


def test_a_twin_finished_between_the_check_and_the_rename_is_kept(tmp_path, monkeypatch):
    # Two builders of one content (the watcher's warm step and a search, say): the other one's
    # folder appears after this one saw none, so the rename meets a folder that is not empty.
    final = tmp_path / "core~bm25~s~c1"
    real_replace = cache.os.replace

    def other_builder_first(src, dst):
        if dst == final and not final.exists():
            final.mkdir()
            (final / "meta.json").write_text('{"v": "theirs"}')
        return real_replace(src, dst)

    monkeypatch.setattr(cache.os, "replace", other_builder_first)
    folder = cache.publish(tmp_path, final.name, ["a"], {"v": "ours"}, save_one)
    assert folder == final and cache.read_meta(final) == {"v": "theirs"}
    assert [p.name for p in tmp_path.iterdir()] == [final.name]  # no temporary folder left


def test_pending_counts_are_remembered_and_bounded(tmp_path):
    assert cache.read_pending(tmp_path, "x") is None
    tmp_path.mkdir(exist_ok=True)
    for i in range(cache.PENDING_NOTES + 5):
        cache.write_pending(tmp_path, f"n{i}", [i, 10])
    assert cache.read_pending(tmp_path, f"n{cache.PENDING_NOTES + 4}") == [cache.PENDING_NOTES + 4, 10]
    assert cache.read_pending(tmp_path, "n0") is None  # the oldest note was forgotten
    (tmp_path / "pending.json").write_text("not json")
    assert cache.read_pending(tmp_path, "n1") is None


def test_slot_key_depends_on_every_part():
    a = cache.slot_key({"layer": "core", "embedder": "minilm"})
    assert a == cache.slot_key({"embedder": "minilm", "layer": "core"})
    assert a != cache.slot_key({"layer": "core", "embedder": "fake"})
