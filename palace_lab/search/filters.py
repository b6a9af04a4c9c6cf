"""Search filters: which exchanges a search may return.

- ``project``: the exchange's project equals this string;
- ``date_from`` / ``date_to``: the exchange's timestamp (ISO 8601, UTC) is on or after
  ``date_from`` and on or before ``date_to``; a bound may be a date (``2024-05-01``, the whole
  day for ``date_to``) or a full timestamp. Exchanges without a timestamp are excluded as soon
  as either bound is set. ``from`` and ``to`` are accepted as aliases;
- ``room``: one of the exchange's distilled-card rooms has this ``room_key`` (needs cards; an
  exchange without a card of the distiller is excluded).

Filters are applied before ranking (as a mask over each index's rows), so a filtered search
still returns up to ``k`` hits when that many exchanges pass.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date, datetime, timezone

from palace_lab.errors import SearchError

ALIASES = {"from": "date_from", "to": "date_to", "room_key": "room"}


@dataclass(frozen=True)
class Filters:
    project: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    room: str | None = None

    def __post_init__(self) -> None:
        for name in ("date_from", "date_to"):  # one form, so that strings compare as times
            object.__setattr__(self, name, _iso(getattr(self, name)))

    @classmethod
    def coerce(cls, value) -> "Filters | None":
        """A Filters from None, a Filters or a dict (unknown keys are refused by name)."""
        if value is None or isinstance(value, Filters):
            return value if value is None or value.active else None
        if not isinstance(value, dict):
            raise SearchError(f"filters must be a dict or Filters, not {type(value).__name__}")
        valid = [f.name for f in fields(cls)]
        clean = {}
        for key, item in value.items():
            name = ALIASES.get(key, key)
            if name not in valid:
                raise SearchError(f"unknown filter {key!r}; valid filters: {', '.join(valid)} "
                                  f"(aliases: {', '.join(ALIASES)})")
            clean[name] = item
        made = cls(**clean)
        return made if made.active else None

    @property
    def active(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    def admits(self, project: str | None, timestamp: str | None, rooms: frozenset[str]) -> bool:
        if self.project and project != self.project:
            return False
        if self.date_from or self.date_to:
            if not timestamp:
                return False
            if self.date_from and timestamp < self.date_from:
                return False
            if self.date_to and timestamp[:len(self.date_to)] > self.date_to:
                return False
        return not self.room or self.room in rooms


def _iso(value) -> str | None:
    """A date bound as the palace writes timestamps: ``YYYY-MM-DD`` or UTC with ms and ``Z``."""
    if value is None or value == "":
        return None
    if isinstance(value, date) and not isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise SearchError(f"date filter {value!r} is not an ISO date (YYYY-MM-DD)") from None
        if len(value) == 10:
            return value
        value = moment
    if not isinstance(value, datetime):
        raise SearchError(f"date filter {value!r} is not an ISO date")
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    text = value.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")
