"""Waiting in tests for what background threads do: one poll loop for every folder; and the
clock a test moves by hand."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(predicate: Callable[[], bool], timeout: float = 5.0, step: float = 0.01) -> bool:
    """Poll ``predicate`` every ``step`` seconds until it holds or ``timeout`` seconds pass;
    its last answer (asked once more at the end, so a late truth still counts)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


class Clock:
    """A clock for code that takes one (``now()``): it stands still until the test sets ``now``."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
