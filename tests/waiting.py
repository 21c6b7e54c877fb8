"""Waiting in tests for what background threads do: one poll loop for every folder."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.01) -> bool:
    """Poll ``predicate`` every ``step`` seconds until it holds or ``timeout`` seconds pass;
    its last answer (asked once more at the end, so a late truth still counts)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
