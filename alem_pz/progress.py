"""Progress bars for alem's long jobs (evaluation, training, recording, benchmarks), with tqdm.

One place decides when a bar shows: on a terminal, unless the job was asked for silence
(``--no-progress``, ``progress=False``). Piped or captured output (CI logs, ``> log.txt``, pytest)
gets no bar, so logs stay free of carriage returns. tqdm is in the ``eval`` and ``train`` extras;
without it a job runs silently rather than failing, since a bar is never a result.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO


class _Silent:
    """The bar's interface when no bar is drawn (disabled, or tqdm not installed)."""

    def update(self, n: int = 1) -> None:
        """Ignore ``n`` more units of work."""

    def set_description_str(self, desc: str | None = None, refresh: bool = True) -> None:
        """Ignore a new label."""

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        """Ignore a new suffix."""

    def close(self) -> None:
        """Nothing to close."""

    def write(self, line: str) -> None:
        """Print ``line`` (tqdm's ``write`` prints above the bar)."""
        print(line, flush=True)


def bar(
    total: int, desc: str = "", unit: str = "step", enabled: bool = True, file: TextIO | None = None
) -> Any:
    """A tqdm bar of ``total`` units on ``file`` (stderr), drawn only when ``enabled`` and
    ``file`` is a terminal; otherwise an object with the same methods that draws nothing."""
    stream = file if file is not None else sys.stderr
    if not enabled or not getattr(stream, "isatty", lambda: False)():
        return _Silent()
    try:
        from tqdm import tqdm
    except ImportError:
        return _Silent()
    return tqdm(total=total, desc=desc, unit=unit, file=stream, dynamic_ncols=True)


__all__ = ["bar"]
