"""``Record``: the mixin every frozen state record shares."""

from __future__ import annotations

import dataclasses
from typing import Any, Self


class Record:
    """A frozen dataclass record of the state with a ``replace`` method."""

    def replace(self, **changes: Any) -> Self:
        """Copy with ``changes`` applied (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]  # on dataclasses


__all__ = ["Record"]
