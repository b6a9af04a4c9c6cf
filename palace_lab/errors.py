"""The few domain errors; the CLI and the pages turn each into one clear line."""


class PalaceError(Exception):
    """Base of every error palace_lab raises on purpose."""


class UnknownFormatError(PalaceError):
    """A file matched none of the known export formats."""


class NothingToIngestError(PalaceError):
    """A path held nothing that any parser could read."""


class StoreError(PalaceError):
    """The palace file is missing, of a newer schema, or inconsistent."""


class DistillError(PalaceError):
    """A distiller could not run (bad configuration, cost cap reached, no key)."""


class CostCapExceededError(DistillError):
    """A paid run would go (or went) over its hard cost cap."""


class BatchPendingError(DistillError):
    """A submitted batch has not ended yet; its id is kept, so the next run collects it."""


class SearchError(PalaceError):
    """A mode string or an index could not be used."""


class InputError(PalaceError, ValueError):
    """A file or value the person gave is not usable (a broken queries line, a bad grade, a pack
    budget below its header). A ``ValueError`` too, as validation errors are."""


class TooLargeError(PalaceError):
    """A file, ZIP member or line is over a documented size limit (see palace_lab.ingest.base)."""
