"""``Record``: the mixin every frozen state record shares."""

from __future__ import annotations

import dataclasses


class Record:
    """A frozen dataclass record of the state with a ``replace`` method."""

    def replace(self, **changes: object):
        """Copy with ``changes`` applied (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)


__all__ = ["Record"]
