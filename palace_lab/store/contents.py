"""What a palace holds, in a few lines: its projects, its sources, its span in time.

A person keeps several palaces (the bundled sample, their own history, a trial): whatever
shows or chooses a palace says which one is open and what is in it from these figures, read
fresh from the file each time (a few GROUP BY queries, milliseconds on a large palace).

A palace *holds the sample* when one of its sources is a file of the bundled sample folder;
such a palace is the sample's, and one's own history goes into a palace of its own rather than
being merged into it (the Overview's figures would otherwise describe neither).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.store.opening import rows_in
from palace_lab.text.words import QUERY_STOPWORDS, QUERY_WORD

if TYPE_CHECKING:
    from palace_lab.store.palace import Palace


@dataclass(frozen=True)
class Contents:
    """``projects`` and ``sources`` are ``(name, count)`` pairs, largest first."""

    exchanges: int
    conversations: int
    cards: int
    judgments: int
    projects: tuple[tuple[str, int], ...]
    sources: tuple[tuple[str, int], ...]  # (format, conversations)
    first: str | None
    last: str | None

    def to_dict(self) -> dict:
        return {"exchanges": self.exchanges, "conversations": self.conversations,
                "cards": self.cards, "judgments": self.judgments,
                "projects": dict(self.projects), "sources": dict(self.sources),
                "first": self.first, "last": self.last}


NO_PROJECT = "(no project)"


def palace_contents(palace: Palace) -> Contents:
    q = palace.conn.execute
    projects = q("SELECT COALESCE(project, ?), COUNT(*) FROM exchanges GROUP BY 1"
                 " ORDER BY 2 DESC, 1", (NO_PROJECT,)).fetchall()
    sources = q("SELECT source_format, COUNT(*) FROM conversations GROUP BY 1"
                " ORDER BY 2 DESC, 1").fetchall()
    first, last = q("SELECT MIN(timestamp), MAX(timestamp) FROM exchanges").fetchone()
    return Contents(palace.count("exchanges"), palace.count("conversations"),
                    palace.count("cards"), palace.count("judgments"),
                    tuple((str(a), int(b)) for a, b in projects),
                    tuple((str(a), int(b)) for a, b in sources), first, last)


def projects(palace: Palace) -> dict[str, int]:
    """Every named project of the palace with its number of exchanges, largest first, ties by
    name (exchanges without a project are not listed). ``sorted(projects(p))`` lists the names
    alphabetically, as a picker shows them."""
    rows = palace.conn.execute("SELECT project, COUNT(*) FROM exchanges WHERE project IS NOT NULL"
                               " GROUP BY project ORDER BY COUNT(*) DESC, project")
    return {name: n for name, n in rows}


def holds_sample(palace: Palace, sample_dir: str | Path) -> bool:
    """True when one of the palace's source files lies in ``sample_dir``."""
    root = str(Path(sample_dir).expanduser().resolve()).rstrip("/") + "/"
    row = palace.conn.execute("SELECT 1 FROM sources WHERE substr(path, 1, ?) = ? LIMIT 1",
                              (len(root), root)).fetchone()
    return row is not None


def titles(palace: Palace, conversation_ids) -> dict[str, str | None]:
    """``{conversation_id: title}`` of the given conversations."""
    rows = rows_in(palace.conn, "SELECT conversation_id, title FROM conversations WHERE"
                                " conversation_id IN ({marks})", dict.fromkeys(conversation_ids))
    return {a: b for a, b in rows}





def query_terms(query: str) -> list[str]:
    """The query's content words, lower case, in order: stop words and single letters dropped."""
    words = (w.lower() for w in QUERY_WORD.findall(query))
    return list(dict.fromkeys(w for w in words if len(w) > 1 and w not in QUERY_STOPWORDS))


def absent_terms(palace: Palace, query: str) -> tuple[list[str], list[str]]:
    """``(terms, absent)``: the query's content words, and those no exchange's verbatim text
    contains (case-insensitive substring, so ``pool`` is found in ``pool_size``)."""
    terms = query_terms(query)
    absent = [t for t in terms if palace.conn.execute(
        "SELECT 1 FROM exchanges WHERE instr(lower(verbatim), ?) > 0 LIMIT 1", (t,)).fetchone()
        is None]
    return terms, absent
