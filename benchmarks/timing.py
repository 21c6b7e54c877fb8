"""Timing helpers shared by the benchmark scripts (they run as scripts, so import it as
``from timing import timed``)."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any


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


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile of ``values`` by nearest rank (one of the values, no blend)."""
    s = sorted(values)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


def spread(values: list[float]) -> str:
    """Answer times in ms as a figure's text: median, 95th percentile and worst."""
    return (
        f"p50 {statistics.median(values):.1f} ms, p95 {percentile(values, 95):.1f} ms,"
        f" max {max(values):.1f} ms"
    )


def draw_turns(svc: Any, n: int, pause: float = 0.0) -> list[float]:
    """``n`` actions on the running service ``svc``: two cards drawn by the current player,
    which completes the turn (a new log position each); each answer's time in ms, ``pause``
    seconds apart."""
    from companion.service import Actor

    host = Actor.host()
    times = []
    for _ in range(n):
        color = svc.state()["current"]
        t0 = time.perf_counter()
        svc.act({"type": "drew_cards", "player": color, "count": 2}, host)
        times.append((time.perf_counter() - t0) * 1000)
        if pause:
            time.sleep(pause)
    return times
