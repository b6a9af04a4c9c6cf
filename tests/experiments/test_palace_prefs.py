"""A palace's own defaults beside its file: stored, validated, reset."""

import pytest

from palace_lab.experiments import prefs as palace_prefs
from palace_lab.errors import InputError, SearchError
from palace_lab.search import DEFAULT_MODE


def test_search_mode_is_stored_canonical_and_reset(tmp_path):
    db = tmp_path / "p.db"
    assert palace_prefs.search_mode(db) == DEFAULT_MODE
    palace_prefs.set_pref(db, "search_mode", "wrrf( bm25:verbatim=0.6, hnsw:core=0.4 ; k=1)")
    assert palace_prefs.search_mode(db) == "wrrf(bm25:verbatim=0.6,hnsw:core=0.4;k=1)"
    assert palace_prefs.prefs_path(db).name == "p.db.prefs.json"
    palace_prefs.set_pref(db, "search_mode", None)
    assert palace_prefs.search_mode(db) == DEFAULT_MODE


def test_bad_mode_and_unknown_key_are_refused(tmp_path):
    with pytest.raises(SearchError):
        palace_prefs.set_pref(tmp_path / "p.db", "search_mode", "wrrf(nope)")
    with pytest.raises(InputError, match="valid: search_mode"):
        palace_prefs.set_pref(tmp_path / "p.db", "colour", "red")
    palace_prefs.prefs_path(tmp_path / "q.db").write_text("not json")
    assert palace_prefs.load(tmp_path / "q.db") == {}
