"""Timing helpers shared by the benchmark scripts (they run as scripts, so import it as
``from timing import timed``)."""

from __future__ import annotations

import os
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


def load() -> str:
    """The machine's load averages and core count, for a benchmark's heading."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"
