"""The palace store: one SQLite file per palace (see :mod:`palace_lab.store.palace`)."""

from palace_lab.store.palace import Palace, VerifyReport

__all__ = ["Palace", "VerifyReport"]
