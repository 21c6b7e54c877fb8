"""The set-up check (``companion doctor``, ``GET /api/doctor``, the host page's 点検 section).

Each check is a :class:`Check`: an ``id`` that begins with its area (``camera.found``), a
``status`` (``ok`` / ``warn`` / ``fail``), a stable ``code`` (``doctor.camera.found_ok``) whose
words and advice are in both catalogues (``web/static/i18n``), and its ``params``. The checks
themselves are pure functions over small facts (:mod:`.checks`); the facts come from the devices
and the OS through small interfaces with fakes (:mod:`.probes`, :mod:`.camera`);
:mod:`.runner` puts them together. Thresholds: ``companion/data/doctor.json``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from companion.core.records import fields_json

STATUSES = ("ok", "warn", "fail")


@dataclass(frozen=True)
class Check:
    """One line of the set-up check."""

    id: str
    status: str
    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown check status {self.status!r}")

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


def report(checks: Iterable[Check]) -> dict[str, Any]:
    """The JSON of ``companion doctor --json`` and ``GET /api/doctor``."""
    return {"checks": [c.to_json() for c in checks]}


def exit_code(checks: Iterable[Check]) -> int:
    """0 when nothing fails, 1 when something does."""
    return 1 if any(c.status == "fail" for c in checks) else 0


@cache
def settings() -> dict[str, Any]:
    """companion/data/doctor.json (what each number means is told there)."""
    from companion.data import load_json

    data: dict[str, Any] = load_json("doctor.json")
    return data


__all__ = ["STATUSES", "Check", "exit_code", "report", "settings"]
