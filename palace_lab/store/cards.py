"""Distilled cards in the palace, one row per (exchange, distiller version).

A card remembers the hash of the exchange it was made from: when the exchange changes (a
session grew), the card is stale and the exchange is pending again for that version. Cards of
other versions are never touched, so two prompts or two backends can be compared side by side.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from typing import NamedTuple

from palace_lab.model import DistilledCard, Exchange, Room, content_hash
from palace_lab.store.opening import rows_in


def card_hash(card: DistilledCard) -> str:
    rooms = json.dumps([r.to_dict() for r in card.room_assignments], sort_keys=True)
    # Keywords join the hash only when present, so cards made before the field verify as before.
    extra = (json.dumps(list(card.keywords)),) if card.keywords else ()
    return content_hash(card.exchange_id, card.distiller, card.exchange_core,
                        card.specific_context, rooms, json.dumps(list(card.files_touched)), *extra)


class CardRooms(NamedTuple):
    """A card's rooms, for counting rooms without reading the rest of the card."""

    exchange_id: str
    room_assignments: tuple[Room, ...]


class CardsMixin:
    def register_distiller(self, version: str, backend: str, config: dict | None = None) -> None:
        from palace_lab.store.palace import now_iso

        with self.transaction() as tx:
            tx.execute("INSERT OR IGNORE INTO distillers VALUES (?,?,?,?)",
                       (version, backend, json.dumps(config or {}), now_iso()))

    def distiller_versions(self) -> list[dict]:
        rows = self.conn.execute(
            "SELECT d.version, d.backend, d.config_json, d.created_at, COUNT(c.exchange_id) AS cards,"
            " COALESCE(SUM(c.fallback), 0) AS fallbacks, COALESCE(SUM(c.cost_usd), 0) AS cost_usd"
            " FROM distillers d LEFT JOIN cards c ON c.distiller = d.version"
            " GROUP BY d.version ORDER BY d.created_at, d.version")
        return [dict(r) for r in rows]

    def put_cards(self, outcomes: Iterable, exchange_hashes: dict[str, str]) -> int:
        """Store DistillOutcome values atomically; returns how many were written."""
        from palace_lab.store.palace import now_iso

        rows = []
        for o in outcomes:
            c = o.card
            rows.append((
                c.exchange_id, c.distiller, exchange_hashes[c.exchange_id], c.exchange_core,
                c.specific_context, json.dumps([r.to_dict() for r in c.room_assignments]),
                json.dumps(list(c.files_touched)), int(c.fallback), o.error, o.input_tokens,
                o.output_tokens, o.cost_usd, now_iso(), card_hash(c), json.dumps(list(c.keywords))))
        with self.transaction() as tx:
            tx.executemany(f"INSERT OR REPLACE INTO cards ({_COLUMNS}) VALUES "
                           f"({','.join('?' * len(_COLUMNS.split(',')))})", rows)
        return len(rows)

    def cards(self, distiller: str) -> list[DistilledCard]:
        """The cards of one version, in exchange order (stale ones included)."""
        rows = self.conn.execute(
            "SELECT c.* FROM cards c JOIN exchanges e USING (exchange_id)"
            " JOIN conversations v ON v.conversation_id = e.conversation_id"
            " WHERE c.distiller=? ORDER BY v.started_at, v.conversation_id, e.ply_start",
            (distiller,))
        return [_row_card(r) for r in rows]

    def card_hashes(self, distiller: str) -> list[tuple[str, str]]:
        """``(exchange_id, card hash)`` of one version's cards, in the order of :meth:`cards`,
        reading no text (both from indexes)."""
        return self.conn.execute(
            "SELECT c.exchange_id, c.hash FROM exchanges e INDEXED BY exchanges_in_order"
            " JOIN cards c INDEXED BY cards_by_version ON c.distiller=? AND c.exchange_id = e.exchange_id"
            " JOIN conversations v ON v.conversation_id = e.conversation_id"
            " ORDER BY v.started_at, v.conversation_id, e.ply_start", (distiller,)).fetchall()

    def cards_by_id(self, distiller: str, ids: Sequence[str]) -> dict[str, DistilledCard]:
        """The cards of ``ids`` (those that exist) of one version, by exchange id."""
        rows = rows_in(self.conn, "SELECT * FROM cards WHERE distiller=? AND exchange_id"
                                  " IN ({marks})", ids, distiller)
        return {r["exchange_id"]: _row_card(r) for r in rows}

    def card_rooms(self, distiller: str) -> list[CardRooms]:
        """The room assignments of one version's cards, in the order of :meth:`cards`
        (exchange id and rooms only: a third of the time of reading the cards, at 50,000)."""
        rows = self.conn.execute(
            "SELECT c.exchange_id, c.rooms_json FROM exchanges e INDEXED BY exchanges_in_order"
            " JOIN cards c ON c.distiller=? AND c.exchange_id = e.exchange_id"
            " JOIN conversations v ON v.conversation_id = e.conversation_id"
            " ORDER BY v.started_at, v.conversation_id, e.ply_start", (distiller,))
        return [CardRooms(eid, tuple(Room(**r) for r in json.loads(rooms))) for eid, rooms in rows]

    def card_map(self, distiller: str) -> dict[str, DistilledCard]:
        return {c.exchange_id: c for c in self.cards(distiller)}

    def card_details(self, distiller: str) -> list[dict]:
        """Cards with their bookkeeping (fallback, error, tokens, cost) as plain dicts."""
        rows = self.conn.execute("SELECT * FROM cards WHERE distiller=?", (distiller,))
        out = []
        for r in rows:
            d = _row_card(r).to_dict()
            d.update(error=r["error"], input_tokens=r["input_tokens"],
                     output_tokens=r["output_tokens"], cost_usd=r["cost_usd"],
                     created_at=r["created_at"])
            out.append(d)
        return out

    def pending_exchanges(self, distiller: str,
                          exchange_ids: Collection[str] | None = None) -> list[Exchange]:
        """Exchanges with no card of this version, or whose card was made from older text, in
        conversation order; only those rows are read (``exchange_ids``: within these only)."""
        from palace_lab.store.palace import _row_exchange

        rows = self.conn.execute(
            "SELECT e.* FROM exchanges e JOIN conversations v USING (conversation_id)"
            " LEFT JOIN cards c ON c.exchange_id = e.exchange_id AND c.distiller = ?"
            " WHERE c.exchange_hash IS NULL OR c.exchange_hash <> e.hash"
            " ORDER BY v.started_at, v.conversation_id, e.ply_start", (distiller,))
        wanted = None if exchange_ids is None else set(exchange_ids)
        return [_row_exchange(r) for r in rows if wanted is None or r["exchange_id"] in wanted]

    def latest_distiller(self) -> str | None:
        """The default version: the one covering the most exchanges, the newest among equals.

        A partial trial (a prompt tried on 40 exchanges) never becomes the default.
        """
        row = self.conn.execute(
            "SELECT distiller FROM cards GROUP BY distiller ORDER BY COUNT(*) DESC,"
            " MAX(created_at) DESC, distiller DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def verify_cards(self) -> tuple[int, list[str]]:
        bad, n = [], 0
        for r in self.conn.execute("SELECT * FROM cards"):
            n += 1
            if card_hash(_row_card(r)) != r["hash"]:
                bad.append(f"card {r['exchange_id']}@{r['distiller']}")
        return n, bad


_COLUMNS = ("exchange_id,distiller,exchange_hash,exchange_core,specific_context,rooms_json,"
            "files_json,fallback,error,input_tokens,output_tokens,cost_usd,created_at,hash,"
            "keywords_json")


def _row_card(r) -> DistilledCard:
    return DistilledCard.from_dict({
        "exchange_id": r["exchange_id"], "distiller": r["distiller"],
        "exchange_core": r["exchange_core"], "specific_context": r["specific_context"],
        "room_assignments": json.loads(r["rooms_json"]),
        "files_touched": json.loads(r["files_json"]), "fallback": bool(r["fallback"]),
        "keywords": json.loads(r["keywords_json"]),
    })
