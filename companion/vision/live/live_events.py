"""What the live watcher reports and how a change is judged before it is reported.

``LiveConfig`` (the numbers of ``companion/data/live.json``), a ``Change`` of one route or city,
the events (``ClaimSeen``, ``StationSeen``, ``PieceRemoved``, ``NeedsConfirmation``, ``Vetoed``,
``LookChanged``, ``BoardFound``, ``BoardLost``) and the default ``RulesValidator``: what the board
itself can tell is impossible.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from companion.data import load_json
from companion.vision.geometry.board import DrawnBoard
from companion.vision.types import BoardReading

# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LiveConfig:
    work_width: int = 320
    work_blur: float = 1.0
    motion_threshold: int = 14
    motion_fraction: float = 0.0015
    steady_frames: int = 3
    steady_seconds: float = 0.25
    diff_threshold: int = 28
    max_change_area: float = 0.02
    edge_margin: float = 0.03
    edge_blob_area: float = 0.0015
    foreign_area: float = 0.002
    foreign_skin_area: float = 0.0004
    skin_share: float = 0.35
    skin_chroma_shift: float = 0.025
    shadow_ratio: float = 0.8
    shadow_area: float = 0.012
    confirm_reads: int = 3
    reset_on_motion: bool = False
    min_read_interval: float = 0.0
    min_confidence: float = 0.5
    evidence_pixel: float = 8.0
    evidence_share: float = 0.5
    same_colour_evidence: float = 0.8
    same_colour_residue: float = 0.2
    same_colour_confidence: float = 0.3
    same_colour_burst: int = 2
    same_colour_hold_reads: int = 5
    twin_margin: float = 0.1
    relocate_after_frames: int = 4
    relocate_shift: float = 0.004
    relocate_keep: float = 0.5
    register_response: float = 0.1
    refine_iterations: int = 30
    refine_max: float = 4.0
    adopt_seconds: float = 6.0
    stuck_seconds: float = 30.0
    locate_interval: float = 1.0
    trains_per_player: int = 45
    stations_per_player: int = 3

    @staticmethod
    def load(overrides: Mapping[str, Any] | None = None) -> LiveConfig:
        """The thresholds of live.json, with ``overrides`` on top."""
        data = dict(load_json("live.json"))
        data.update(overrides or {})
        known = {f.name: f for f in fields(LiveConfig)}
        kwargs: dict[str, Any] = {}
        for k, v in data.items():
            if k in known:
                kwargs[k] = v
            elif k != "note":
                raise ValueError(f"unknown live setting {k!r}")
        return LiveConfig(**kwargs)


# --------------------------------------------------------------------------------------------
# Changes, verdicts and events
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A route (``kind`` "route") or city (``kind`` "station") going from ``old`` to ``new``."""

    kind: str
    key: str
    old: str | None
    new: str | None
    confidence: float = 1.0

    def describe(self) -> str:
        what = "route" if self.kind == "route" else "station at"
        return f"{what} {self.key}: {self.old or 'free'} -> {self.new or 'free'}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.key,
            "old": self.old,
            "new": self.new,
            "confidence": round(self.confidence, 3),
        }


@dataclass(frozen=True)
class Verdict:
    action: str  # "ok" | "veto" | "confirm"
    reason: str = ""


OK = Verdict("ok")


def veto(reason: str) -> Verdict:
    return Verdict("veto", reason)


def needs_confirmation(reason: str) -> Verdict:
    return Verdict("confirm", reason)


@dataclass
class WatchState:
    """What has been reported so far: route id -> owner, city id -> station colour."""

    routes: dict[str, str] = field(default_factory=dict)
    stations: dict[str, str] = field(default_factory=dict)

    @classmethod
    def seen_in(cls, reading: BoardReading) -> WatchState:
        """The owners a board reading shows (free routes and cities left out)."""
        return cls(
            routes={k: v for k, v in reading.routes.items() if v is not None},
            stations={k: v for k, v in reading.stations.items() if v is not None},
        )

    def get(self, kind: str, key: str) -> str | None:
        return (self.routes if kind == "route" else self.stations).get(key)

    def apply(self, change: Change) -> None:
        table = self.routes if change.kind == "route" else self.stations
        if change.new is None:
            table.pop(change.key, None)
        else:
            table[change.key] = change.new


def _event_json(event: str, frame: int, t: float, **fields: Any) -> dict[str, Any]:
    """An event's JSON: its name, its own fields, then the frame and the time it was seen at."""
    return {"event": event, **fields, "frame": frame, "t": round(t, 3)}


@dataclass(frozen=True)
class ClaimSeen:
    """Trains seen on a route. ``unsure``: the reader could not see them (the route is printed
    in their colour) but most of the route's pixels changed and stayed changed, or the reading
    put the route on its check list (``listed``, see ``live.as_questions``): a question for a
    human rather than a claim to record."""

    route: str
    color: str
    confidence: float
    frame: int
    t: float
    unsure: bool = False
    listed: bool = False

    def to_json(self) -> dict[str, Any]:
        out = _event_json(
            "claim",
            self.frame,
            self.t,
            route=self.route,
            color=self.color,
            confidence=round(self.confidence, 3),
        )
        if self.unsure:
            out["unsure"] = True
        if self.listed:
            out["listed"] = True
        return out

    def text(self) -> str:
        mark = ", unsure: same colour as the print" if self.unsure else ""
        if self.listed:
            mark = ", unsure: on the reading's check list"
        return f"claim   {self.route} {self.color} ({self.confidence:.2f}{mark})"


@dataclass(frozen=True)
class StationSeen:
    city: str
    color: str
    confidence: float
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return _event_json(
            "station",
            self.frame,
            self.t,
            city=self.city,
            color=self.color,
            confidence=round(self.confidence, 3),
        )

    def text(self) -> str:
        return f"station {self.city} {self.color} ({self.confidence:.2f})"


@dataclass(frozen=True)
class PieceRemoved:
    """A validator accepted trains or a station leaving the board (the default vetoes it)."""

    change: Change
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return _event_json("removed", self.frame, self.t, **self.change.to_json())

    def text(self) -> str:
        return f"removed {self.change.describe()}"


@dataclass(frozen=True)
class _Ruling:
    """A change the validator did not let through as it is, and why (the two kinds below)."""

    change: Change
    reason: str
    frame: int
    t: float

    EVENT: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        body = {**self.change.to_json(), "reason": self.reason}
        return _event_json(self.EVENT, self.frame, self.t, **body)


@dataclass(frozen=True)
class NeedsConfirmation(_Ruling):
    EVENT: ClassVar[str] = "confirm"

    def text(self) -> str:
        return f"confirm {self.change.describe()}? {self.reason}"


@dataclass(frozen=True)
class Vetoed(_Ruling):
    EVENT: ClassVar[str] = "veto"

    def text(self) -> str:
        return f"veto    {self.change.describe()}: {self.reason}"


@dataclass(frozen=True)
class LookChanged:
    """Several free routes printed in a colour that plays changed at once, and stayed so, in a
    way no light explains (``live_hints``): one turn puts down one route, so none is guessed,
    and their present look is taken as it is; but a player may have claimed one of them then.
    A "please check" for the host, who enters such a claim."""

    routes: tuple[str, ...]
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return _event_json("look_changed", self.frame, self.t, routes=list(self.routes))

    def text(self) -> str:
        return (
            f"several routes changed at once, none guessed (a claim there?): "
            f"{', '.join(self.routes)}"
        )


@dataclass(frozen=True)
class BoardFound:
    corners: tuple[tuple[float, float], ...]
    relocated: bool
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        corners = [[round(x, 1), round(y, 1)] for x, y in self.corners]
        return _event_json(
            "board", self.frame, self.t, found=True, relocated=self.relocated, corners=corners
        )

    def text(self) -> str:
        what = "board moved, found again" if self.relocated else "board found"
        return f"{what} at frame {self.frame}"


@dataclass(frozen=True)
class BoardLost:
    reason: str
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return _event_json("board", self.frame, self.t, found=False, reason=self.reason)

    def text(self) -> str:
        return f"no board: {self.reason}"


Event = (
    ClaimSeen
    | StationSeen
    | PieceRemoved
    | NeedsConfirmation
    | Vetoed
    | LookChanged
    | BoardFound
    | BoardLost
)
Validator = Callable[[Change, WatchState], Verdict]


class RulesValidator:
    """The default checks: what the board itself can tell is impossible.

    Vetoes a route changing owner, trains or a station leaving the board, a station changing
    colour, a player over the trains or stations they own, and one player on both routes of a
    double. Asks for confirmation when the reader is unsure (confidence under ``min_confidence``).
    """

    def __init__(
        self,
        *,
        route_lengths: Mapping[str, int],
        twins: Mapping[str, str | None],
        trains_per_player: int = 45,
        stations_per_player: int = 3,
        min_confidence: float = 0.5,
    ) -> None:
        self.lengths = dict(route_lengths)
        self.twins = dict(twins)
        self.trains = trains_per_player
        self.stations = stations_per_player
        self.min_confidence = min_confidence

    @staticmethod
    def for_geometry(geometry: DrawnBoard, config: LiveConfig) -> RulesValidator:
        return RulesValidator(
            route_lengths={r: info.length for r, info in geometry.routes.items()},
            twins={r: info.twin for r, info in geometry.routes.items()},
            trains_per_player=config.trains_per_player,
            stations_per_player=config.stations_per_player,
            min_confidence=config.min_confidence,
        )

    def __call__(self, change: Change, state: WatchState) -> Verdict:
        if change.kind == "route":
            if change.old is not None and change.new is not None:
                return veto(f"{change.key} already belongs to {change.old}")
            if change.new is None:
                return veto(f"trains do not leave a claimed route ({change.key}, {change.old})")
            length = self.lengths.get(change.key)
            if length is None:
                return veto(f"unknown route {change.key}")
            used = sum(self.lengths.get(r, 0) for r, c in state.routes.items() if c == change.new)
            if used + length > self.trains:
                return veto(
                    f"{change.new} would have {used + length} trains on the board "
                    f"(a player has {self.trains})"
                )
            twin = self.twins.get(change.key)
            if twin and state.routes.get(twin) == change.new:
                return veto(f"{change.new} already holds {twin}, the other route of this double")
        else:
            if change.old is not None and change.new is not None:
                return veto(f"{change.key} already has a {change.old} station")
            if change.new is None:
                return veto(f"stations do not leave the board ({change.key}, {change.old})")
            built = sum(1 for c in state.stations.values() if c == change.new)
            if built + 1 > self.stations:
                return veto(f"{change.new} has no station left (a player has {self.stations})")
        if change.confidence < self.min_confidence:
            return needs_confirmation(f"the camera is unsure ({change.confidence:.2f})")
        return OK
