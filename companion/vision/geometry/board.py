"""The Europe board as drawn: every route with its map facts and its measured printed spaces,
and the city spots, as fractions of the board (``europe_board.json`` with ``europe.json``).

What the live watcher looks at (where a route's spaces are, which route is its twin, how long
it is) and what the simulator draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.data import load_json


@dataclass(frozen=True)
class Space:
    """One printed train space: centre, size and clockwise angle, as fractions of the board."""

    x: float
    y: float
    w: float
    h: float
    angle: float


@dataclass(frozen=True)
class RouteInfo:
    id: str
    a: str
    b: str
    length: int
    color: str
    tunnel: bool
    locomotives: int
    twin: str | None
    spaces: tuple[Space, ...]


@dataclass(frozen=True)
class CityInfo:
    id: str
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class DrawnBoard:
    """Routes (with their map facts and twins) and city spots of the Europe board, as drawn.

    What the live watcher compares and the simulator draws, route by route (spaces as x, y, w, h
    fractions of the board). The reader samples through ``geometry.SamplingGeometry`` instead:
    the same boxes in one fixed order, for building sampling grids.

    ``routes`` holds every route of the map facts; a route with no measured spaces has an empty
    ``spaces`` tuple and is neither drawn nor offered by :meth:`drawable_routes`.
    """

    aspect: float
    routes: dict[str, RouteInfo]
    cities: dict[str, CityInfo]

    def drawable_routes(self) -> list[str]:
        return [r for r, info in self.routes.items() if info.spaces]


def load_geometry() -> DrawnBoard:
    """Read ``europe_board.json`` and ``europe.json`` from the package data."""
    board = load_json("europe_board.json")
    facts = load_json("europe.json")
    spaces_by_route: dict[str, Any] = board.get("routes", {})
    routes: dict[str, RouteInfo] = {}
    for r in facts["routes"]:
        boxes = tuple(
            Space(float(s["x"]), float(s["y"]), float(s["w"]), float(s["h"]), float(s["angle"]))
            for s in spaces_by_route.get(r["id"], [])
        )
        routes[r["id"]] = RouteInfo(
            id=r["id"],
            a=r["a"],
            b=r["b"],
            length=int(r["length"]),
            color=str(r["color"]),
            tunnel=bool(r["tunnel"]),
            locomotives=int(r["locomotives"]),
            twin=r.get("twin"),
            spaces=boxes,
        )
    cities = {
        cid: CityInfo(cid, float(c["x"]), float(c["y"]), float(c["w"]), float(c["h"]))
        for cid, c in board.get("cities", {}).items()
    }
    aspect = float(board.get("frame", {}).get("aspect", 1.5))
    return DrawnBoard(aspect=aspect, routes=routes, cities=cities)
