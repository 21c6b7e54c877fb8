"""Helpers shared by the reader tests (a plain module: conftest names clash across folders)."""

from __future__ import annotations

from collections.abc import Callable

from tests import waiting


def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    return waiting.wait_for(predicate, timeout, step=0.005)
