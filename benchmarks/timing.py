"""Timing helpers shared by the benchmark scripts (they run as scripts, so import it as
``from timing import timed``)."""

from __future__ import annotations

import time
from collections.abc import Callable


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    """Milliseconds of wall time of each of ``repeat`` calls of ``fn``."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out
