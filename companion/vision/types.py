"""Value types shared by the vision stages (reading, rendering, live watching)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PLAYER_COLORS: tuple[str, ...] = ("blue", "red", "green", "yellow", "black")


class NoBoardError(ValueError):
    """The picture holds no Ticket to Ride: Europe board (or too little of one to read)."""


@dataclass
class BoardReading:
    """What one picture shows.

    routes: every route id -> owning player colour, or None when free.
    stations: every city id -> station colour, or None.
    confidence: route ids and city ids -> 0..1 confidence of the reported value.
    spaces: route id -> per-space colour (None = empty), in the order of europe_board.json.
    check: route and city ids a person should confirm before the reading is used (low
    confidence, print that may pass for trains, same-colour trains, impossible combinations).
    problems: impossible combinations as seen (``check.Problem.to_json`` dicts: ids, code,
    color, text).
    why: id on the check list -> the rules that put it there (``check.assess``; for the
    benchmarks and logs, not part of the JSON form).
    calibrated: route ids and city ids -> the share of such readings that were right
    (``calibrate.py``: the raw confidence mapped per kind of reading); the check list is decided
    from it.
    """

    routes: dict[str, str | None]
    stations: dict[str, str | None]
    confidence: dict[str, float] = field(default_factory=dict)
    spaces: dict[str, list[str | None]] = field(default_factory=dict)
    board: str = "europe"
    check: list[str] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    why: dict[str, list[str]] = field(default_factory=dict)
    calibrated: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSON form of ../shared/spec/cli.md (`companion vision read --json`)."""
        return {
            "board": self.board,
            "routes": dict(self.routes),
            "stations": dict(self.stations),
            "confidence": {k: round(v, 3) for k, v in self.confidence.items()},
            "check": list(self.check),
            "problems": [dict(p) for p in self.problems],
            # the share of such readings that were right (``calibrate.py``): what the check list
            # is decided from (a field beyond ../shared/spec/cli.md's, which welcomes more)
            **(
                {"calibrated": {k: round(v, 4) for k, v in self.calibrated.items()}}
                if self.calibrated
                else {}
            ),
        }
