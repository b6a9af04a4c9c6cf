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


def test_the_main_version_is_the_pick_the_saved_one_or_the_one_with_most_cards(tmp_path):
    """One rule for the app's sidebar and the Overview's figures (experiments.story)."""
    from tiny_palace import fill

    from palace_lab.distill import get_distiller
    from palace_lab.distill.base import DistillOutcome
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.experiments import story
    from palace_lab.model import DistilledCard
    from palace_lab.store import Palace

    with Palace.open(tmp_path / "p.db") as palace:
        fill(palace, 3)
        distill_palace(palace, get_distiller("rules"))
        first = palace.exchanges()[0]
        palace.register_distiller("trial:v1", "rules")  # newer, but one card only
        palace.put_cards([DistillOutcome(DistilledCard(first.exchange_id, "trial:v1", "core",
                                                       "ctx", (), ()))],
                         {first.exchange_id: first.hash})
        most = palace.latest_distiller()
        assert story.main_version is palace_prefs.main_version
        assert palace_prefs.main_version(palace) == most != "trial:v1"
        assert palace_prefs.main_version(palace, chosen="trial:v1") == "trial:v1"
        assert palace_prefs.main_version(palace, chosen="gone:v9") == most
        palace_prefs.set_pref(palace.path, "distiller_version", "trial:v1")
        assert story.main_version(palace) == "trial:v1"  # the saved choice, as the app reads it
        assert palace_prefs.main_version(palace, chosen=most) == most
