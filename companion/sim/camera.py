"""The simulated camera: a rendered game with hands, frame by frame, and its scripts.

``SimulatedCamera`` is a :class:`~companion.vision.live.sources.FrameSource` whose frames carry
their
:class:`~companion.vision.live.sources.Truth` (what lies on the board, where the board is, whether a
hand covers it); ``simulated_game`` scripts a random game, ``SimScript``/``SimEvent`` any other.
``open_camera`` is ``vision.sources.open_source`` that also knows ``sim`` / ``sim:SEED[@WxH]``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.sim.render import (
    EDGES,
    BoardRenderer,
    Scene,
    Shadow,
    View,
    random_view,
)
from companion.sim.render_hands import Hand
from companion.vision.live.sources import Frame, FrameSource, SourceError, open_source, parse_size
from companion.vision.types import PLAYER_COLORS

log = logging.getLogger(__name__)


@dataclass
class Truth:
    """Ground truth of a simulated frame: what is on the board and what hides it."""

    scene: Scene
    corners: np.ndarray
    occlusion: float
    covered: frozenset[str]
    covered_cities: frozenset[str]
    moving: bool


@dataclass(frozen=True)
class SimEvent:
    """One entry of a simulated camera's script.

    kind ``claim`` (``route``, ``color``) and ``station`` (``city``, ``color``) put pieces down at
    ``t``; ``hand`` reaches from ``edge`` to ``target`` between ``t`` and ``until`` (in, hold,
    out); ``shadow`` darkens around ``target`` between ``t`` and ``until``; ``nudge`` moves the
    board by ``offset`` = (dx, dy, degrees) at ``t`` (someone bumped the table).
    """

    kind: str
    t: float
    until: float = 0.0
    route: str = ""
    city: str = ""
    color: str = ""
    target: tuple[float, float] = (0.5, 0.5)
    edge: str = "bottom"
    skin: int = 0
    sleeve: int | None = 0
    spread: float = 0.0
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    wobble: float = 0.004

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> SimEvent:
        """Read the JSON form: {"t": 1, "claim": "paris-wien", "color": "red"},
        {"t": 2, "station": "wien", "color": "red"}, {"t": 3, "until": 5, "hand": [0.4, 0.5],
        "edge": "left"}, {"t": 6, "until": 7, "shadow": [0.5, 0.5]}, {"t": 8, "nudge": [6, 3, 0.5]}.
        """
        try:
            t = float(d["t"])
            until = float(d.get("until", t))
            if "claim" in d:
                return SimEvent("claim", t, route=str(d["claim"]), color=str(d["color"]))
            if "station" in d:
                return SimEvent("station", t, city=str(d["station"]), color=str(d["color"]))
            if "hand" in d:
                x, y = (float(v) for v in d["hand"])
                sleeve = d.get("sleeve", 0)
                return SimEvent(
                    "hand",
                    t,
                    until=until,
                    target=(x, y),
                    edge=str(d.get("edge", "bottom")),
                    skin=int(d.get("skin", 0)),
                    sleeve=None if sleeve is None else int(sleeve),
                    spread=float(d.get("spread", 0.0)),
                )
            if "shadow" in d:
                x, y = (float(v) for v in d["shadow"])
                return SimEvent("shadow", t, until=until, target=(x, y))
            if "nudge" in d:
                dx, dy, da = (float(v) for v in d["nudge"])
                return SimEvent("nudge", t, offset=(dx, dy, da))
        except (KeyError, TypeError, ValueError) as exc:
            raise SourceError(f"bad simulated camera event {dict(d)!r}: {exc}") from None
        raise SourceError(f"simulated camera event {dict(d)!r} has no claim/station/hand/shadow")


@dataclass(frozen=True)
class SimTurn:
    """One turn of a simulated game: ``player`` plays from ``t`` (their hand comes in) to
    ``done`` (their hand has left); ``action`` is "draw" (cards beside the board), "claim"
    (``key`` a route) or "station" (``key`` a city). The next turn starts at the next ``t``."""

    player: str
    t: float
    done: float
    action: str
    key: str = ""


@dataclass
class SimScript:
    """A timeline of events, and how long it runs (``turns``: the game's turns, when the
    script is a simulated game)."""

    events: list[SimEvent]
    duration: float
    seed: int = 0
    players: tuple[str, ...] = field(default_factory=lambda: PLAYER_COLORS)
    turns: list[SimTurn] = field(default_factory=list)

    def claims(self) -> list[SimEvent]:
        return [e for e in self.events if e.kind in ("claim", "station")]


def _hand_reach(t: float, t0: float, t1: float, ramp: float) -> float:
    """0 outside [t0, t1], rising to 1 over ``ramp`` seconds and falling back at the end."""
    if t <= t0 or t >= t1:
        return 0.0
    r = min(ramp, (t1 - t0) / 2)
    if t < t0 + r:
        return (t - t0) / r
    if t > t1 - r:
        return (t1 - t) / r
    return 1.0


HAND_RAMP = 0.5  # seconds for a hand to come in or go out


def scene_at(script: SimScript, t: float, seed: int) -> tuple[Scene, bool, tuple[float, ...]]:
    """The scene at time ``t``, whether anything moves then, and the board's nudge (dx, dy, deg)."""
    routes: dict[str, str] = {}
    stations: dict[str, str] = {}
    hands: list[Hand] = []
    shadows: list[Shadow] = []
    moving = False
    nudge = [0.0, 0.0, 0.0]
    for i, e in enumerate(script.events):
        if e.kind == "claim" and e.t <= t:
            routes[e.route] = e.color
        elif e.kind == "station" and e.t <= t:
            stations[e.city] = e.color
        elif e.kind == "nudge" and e.t <= t:
            nudge = [nudge[0] + e.offset[0], nudge[1] + e.offset[1], nudge[2] + e.offset[2]]
        elif e.kind == "hand" and e.t < t < e.until:
            reach = _hand_reach(t, e.t, e.until, HAND_RAMP)
            # a held hand is never quite still
            w = e.wobble
            phase = t * 2.3 + i
            tx = e.target[0] + w * np.sin(phase)
            ty = e.target[1] + w * np.cos(phase * 1.3)
            hands.append(
                Hand(
                    target=(float(tx), float(ty)),
                    edge=e.edge,
                    reach=reach,
                    skin=e.skin,
                    sleeve=e.sleeve,
                    spread=e.spread,
                )
            )
            moving = True
        elif e.kind == "shadow" and e.t < t < e.until:
            k = _hand_reach(t, e.t, e.until, HAND_RAMP)
            shadows.append(Shadow(center=e.target, strength=0.35 * k, angle=30.0))
            moving = moving or k < 1.0
    scene = Scene(
        routes=routes, stations=stations, hands=tuple(hands), shadows=tuple(shadows), seed=seed
    )
    return scene, moving, tuple(nudge)


def _route_centre(renderer: BoardRenderer, route: str) -> tuple[float, float]:
    spaces = renderer.geometry.routes[route].spaces
    return (
        float(np.mean([s.x for s in spaces])),
        float(np.mean([s.y for s in spaces])),
    )


def _edge_for(x: float, y: float, rng: np.random.Generator) -> str:
    """Players sit around the table: an arm comes from the nearest long side or an end."""
    if rng.random() < 0.7:
        return "bottom" if y > 0.45 or rng.random() < 0.5 else "top"
    return "left" if x < 0.5 else "right"


def simulated_game(
    seed: int,
    *,
    players: int = 5,
    renderer: BoardRenderer | None = None,
    max_turns: int | None = None,
    nudges: int = 1,
    idle: tuple[float, float] = (1.0, 2.0),
) -> SimScript:
    """A whole seeded game: players take turns claiming routes and building stations, each claim
    made by a hand that comes in, holds while the trains go down, and leaves. Between claims:
    hands that draw cards beside the board, hands that hover without placing anything, passing
    shadows and, ``nudges`` times, a bumped table. Stops when a player is down to two trains."""
    renderer = renderer or BoardRenderer()
    geo = renderer.geometry
    rng = np.random.default_rng(seed)
    colors = tuple(PLAYER_COLORS[:players])
    trains = dict.fromkeys(colors, 45)
    station_left = dict.fromkeys(colors, 3)
    owner: dict[str, str] = {}
    built: dict[str, str] = {}
    drawable = sorted(geo.drawable_routes())
    events: list[SimEvent] = []
    turns: list[SimTurn] = []
    t = 1.5
    turn = 0
    skins = {c: int(rng.integers(0, 5)) for c in colors}
    sleeves = {c: (int(rng.integers(0, 6)) if rng.random() < 0.75 else None) for c in colors}
    nudge_turns: set[int] = set()
    while True:
        if max_turns is not None and turn >= max_turns:
            break
        p = colors[turn % len(colors)]
        if min(trains.values()) <= 2:
            break
        free = [
            r
            for r in drawable
            if r not in owner
            and geo.routes[r].length <= trains[p]
            and not (geo.routes[r].twin and owner.get(geo.routes[r].twin or "") == p)
        ]
        if not free:
            break
        hand_kw: dict[str, Any] = {"skin": skins[p], "sleeve": sleeves[p]}
        roll = rng.random()
        if roll < 0.2:
            # draw cards: the hand goes to the card row beside the board, sometimes over its edge
            x = float(rng.uniform(0.05, 0.95))
            y = float(rng.choice([-0.08, 1.08])) + float(rng.uniform(-0.06, 0.06))
            dur = float(rng.uniform(1.2, 2.0))
            edge = "bottom" if y > 0.5 else "top"
            events.append(SimEvent("hand", t, until=t + dur, target=(x, y), edge=edge, **hand_kw))
            turns.append(SimTurn(p, t, t + dur, "draw"))
            t += dur + float(rng.uniform(0.3, 1.0))
        elif roll < 0.27 and station_left[p] > 0:
            cities = [c for c in geo.cities if c not in built]
            city = cities[int(rng.integers(0, len(cities)))]
            c = geo.cities[city]
            hold = float(rng.uniform(0.8, 1.4))
            dur = 2 * HAND_RAMP + hold
            edge = _edge_for(c.x, c.y, rng)
            spread = float(rng.uniform(-0.1, 0.1))
            events.append(
                SimEvent(
                    "hand",
                    t,
                    until=t + dur,
                    target=(c.x, c.y + 0.01),
                    edge=edge,
                    spread=spread,
                    **hand_kw,
                )
            )
            events.append(SimEvent("station", t + HAND_RAMP + hold / 2, city=city, color=p))
            built[city] = p
            station_left[p] -= 1
            turns.append(SimTurn(p, t, t + dur, "station", city))
            t += dur + float(rng.uniform(*idle))
        else:
            # shorter routes are more common choices, which makes longer games
            weights = np.array([1.0 / geo.routes[r].length for r in free])
            route = free[int(rng.choice(len(free), p=weights / weights.sum()))]
            info = geo.routes[route]
            cx, cy = _route_centre(renderer, route)
            hold = float(rng.uniform(0.6, 1.0)) + 0.25 * info.length
            dur = 2 * HAND_RAMP + hold
            edge = _edge_for(cx, cy, rng)
            spread = float(rng.uniform(-0.1, 0.1))
            # the hand rests a little short of the route's middle so the trains stay visible
            events.append(
                SimEvent(
                    "hand", t, until=t + dur, target=(cx, cy), edge=edge, spread=spread, **hand_kw
                )
            )
            events.append(SimEvent("claim", t + HAND_RAMP + hold / 2, route=route, color=p))
            owner[route] = p
            trains[p] -= info.length
            turns.append(SimTurn(p, t, t + dur, "claim", route))
            t += dur + float(rng.uniform(*idle))
        # in between: someone hovers or points, a shadow passes, the table gets bumped
        extra = rng.random()
        if extra < 0.15:
            q = colors[int(rng.integers(0, len(colors)))]
            x, y = float(rng.uniform(0.15, 0.85)), float(rng.uniform(0.15, 0.85))
            dur = float(rng.uniform(1.5, 3.0))
            events.append(
                SimEvent(
                    "hand",
                    t,
                    until=t + dur,
                    target=(x, y),
                    edge=_edge_for(x, y, rng),
                    skin=skins[q],
                    sleeve=sleeves[q],
                )
            )
            t += dur + float(rng.uniform(*idle))
        elif extra < 0.25:
            x, y = float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8))
            dur = float(rng.uniform(1.2, 2.5))
            events.append(SimEvent("shadow", t, until=t + dur, target=(x, y)))
            t += dur + float(rng.uniform(*idle))
        turn += 1
        if nudges and turn % 17 == 8 and len(nudge_turns) < nudges:
            nudge_turns.add(turn)
            off = (
                float(rng.uniform(-12, 12)),
                float(rng.uniform(-8, 8)),
                float(rng.uniform(-1, 1)),
            )
            events.append(SimEvent("nudge", t, offset=off))
            t += float(rng.uniform(*idle))
    return SimScript(events=events, duration=t + 2.0, seed=seed, players=colors, turns=turns)


class SimulatedCamera(FrameSource):
    """A camera over a rendered table, playing a script of claims, hands and shadows.

    Frames are stamped on a simulated clock (``index / fps``); ``realtime`` also paces them on the
    wall clock (for the demo). Each frame carries its :class:`Truth`.
    """

    name = "sim"

    def __init__(
        self,
        script: SimScript | Sequence[SimEvent | Mapping[str, Any]] | None = None,
        *,
        seed: int = 0,
        fps: float = 10.0,
        size: tuple[int, int] = (1280, 720),
        duration: float | None = None,
        renderer: BoardRenderer | None = None,
        view: View | None = None,
        realtime: bool = False,
        flicker: float = 0.01,
        players: int = 5,
    ) -> None:
        self.renderer = renderer or BoardRenderer()
        if script is None:
            script = simulated_game(seed, renderer=self.renderer, players=players)
        elif not isinstance(script, SimScript):
            events = [e if isinstance(e, SimEvent) else SimEvent.from_dict(e) for e in script]
            for e in events:
                self._check_event(e)
            end = max([max(e.t, e.until) for e in events], default=0.0) + 2.0
            script = SimScript(events=events, duration=end, seed=seed)
        self.script = script
        self.seed = int(seed)
        self.fps = float(fps)
        if self.fps <= 0:
            raise SourceError("the simulated camera needs a positive frame rate")
        self.size = size
        self.duration = float(duration) if duration is not None else script.duration
        self.view = view or random_view(np.random.default_rng([self.seed, 1]), size)
        self.realtime = realtime
        self.flicker = float(flicker)
        self._index = 0
        self._wall0: float | None = None

    def _check_event(self, e: SimEvent) -> None:
        geo = self.renderer.geometry
        if e.kind == "claim" and e.route not in geo.routes:
            raise SourceError(f"unknown route {e.route!r} in the simulated camera's script")
        if e.kind == "station" and e.city not in geo.cities:
            raise SourceError(f"unknown city {e.city!r} in the simulated camera's script")
        if e.kind in ("claim", "station") and e.color not in PLAYER_COLORS:
            raise SourceError(f"unknown player colour {e.color!r} in the simulated camera's script")
        if e.kind == "hand" and e.edge not in EDGES:
            raise SourceError(f"a hand comes from one of {', '.join(EDGES)}, not {e.edge!r}")

    @property
    def frame_count(self) -> int:
        return int(self.duration * self.fps)

    def open(self) -> None:
        self._index = 0
        self._wall0 = time.monotonic()

    def frame_at(self, index: int) -> Frame:
        t = index / self.fps
        scene, moving, nudge = scene_at(self.script, t, self.seed)
        view = self.view
        if any(nudge):
            view = view.moved(*nudge)
        rng = np.random.default_rng([self.seed, 2, index])
        rendered = self.renderer.render_frame(scene, view, rng)
        image = rendered.image
        if self.flicker > 0:
            gain = 1.0 + float(rng.normal(0.0, self.flicker))
            image = cv2.convertScaleAbs(image, alpha=gain)
        truth = Truth(
            scene=scene,
            corners=rendered.corners,
            occlusion=rendered.occlusion,
            covered=rendered.covered,
            covered_cities=rendered.covered_cities,
            moving=moving,
        )
        return Frame(image, t, index, truth)

    def read(self) -> Frame | None:
        if self._wall0 is None:
            self.open()
        if self._index >= self.frame_count:
            return None
        if self.realtime and self._wall0 is not None:
            due = self._wall0 + self._index / self.fps
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        frame = self.frame_at(self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self._wall0 = None


def open_camera(
    spec: str, *, size: tuple[int, int] | None = None, fps: float | None = None
) -> FrameSource:
    """``open_source(spec)``, and the simulated camera for ``sim`` / ``sim:SEED[@WxH]``."""
    kind, _, arg = (spec or "auto").strip().partition(":")
    if kind.lower() != "sim":
        return open_source(spec, size=size, fps=fps)
    seed_text, _, sz = arg.partition("@")
    try:
        seed = int(seed_text) if seed_text else 0
    except ValueError:
        raise SourceError(f"sim:{arg} needs a whole number as its seed") from None
    return SimulatedCamera(
        seed=seed,
        fps=fps or 10.0,
        size=parse_size(sz) if sz else (size or (1280, 720)),
    )
