"""The London map: locations, districts, routes and tickets, as immutable value types.

Built from ``companion/data/london.json`` (written by tools/build_data.py). Every rules number
(buses, cards, deal and keep counts, the route table, district points) is a data value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from companion.core.board import MapLookups, RouteBasics, routes_by_end
from companion.core.errors import NotationError

from .cards import Card


@dataclass(frozen=True, slots=True)
class Location:
    id: str
    name: str
    district: int | None = None


@dataclass(frozen=True, slots=True)
class District:
    """A group of locations; a player who joins them all with own buses scores ``points``."""

    number: int
    points: int
    locations: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Route(RouteBasics[Card]):
    """One route between two locations. ``color`` is None for grey routes."""

    id: str
    a: str
    b: str
    length: int
    color: Card | None
    twin: str | None = None


@dataclass(frozen=True, slots=True)
class Ticket:
    id: str
    a: str
    b: str
    points: int


@dataclass(frozen=True)
class LondonMap(MapLookups[Route, Ticket]):
    """All facts of the London board and the numbers of its rules."""

    LABEL: ClassVar[str] = "London "

    id: str
    name: str
    locations: Mapping[str, Location]
    districts: tuple[District, ...]
    routes: Mapping[str, Route]
    tickets: Mapping[str, Ticket]
    route_points: Mapping[int, int]
    min_players: int = 2
    max_players: int = 4
    buses_per_player: int = 17
    cards_per_color: int = 6
    bus_cards: int = 8
    hand_size: int = 2
    face_up: int = 5
    face_up_bus_limit: int = 3
    tickets_dealt: int = 2
    tickets_keep_min: int = 1
    tickets_draw: int = 2
    tickets_draw_keep_min: int = 1
    final_round_buses: int = 2
    doubles_closed_up_to_players: int = 2
    routes_at: Mapping[str, tuple[Route, ...]] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LondonMap:
        try:
            locations = {
                loc["id"]: Location(loc["id"], loc["name"], loc.get("district"))
                for loc in data["locations"]
            }
            districts = tuple(
                District(int(d["district"]), int(d["points"]), tuple(d["locations"]))
                for d in data["districts"]
            )
            routes = {
                r["id"]: Route(
                    id=r["id"],
                    a=r["a"],
                    b=r["b"],
                    length=int(r["length"]),
                    color=None if r["color"] == "grey" else Card(r["color"]),
                    twin=r.get("twin"),
                )
                for r in data["routes"]
            }
            tickets = {
                t["id"]: Ticket(t["id"], t["a"], t["b"], int(t["points"])) for t in data["tickets"]
            }
            for d in districts:
                for loc in d.locations:
                    if loc not in locations:
                        raise ValueError(f"district {d.number} names unknown location {loc}")
            for r in routes.values():
                if r.a not in locations or r.b not in locations:
                    raise ValueError(f"route {r.id} joins an unknown location")
                if r.twin is not None and routes[r.twin].twin != r.id:
                    raise ValueError(f"route {r.id} and its twin do not name each other")
            cards = data["transport_cards"]
            players = data["players"]
            return cls(
                id=data["map"],
                name=data["name"],
                locations=locations,
                districts=districts,
                routes=routes,
                tickets=tickets,
                route_points={int(k): int(v) for k, v in data["route_points"].items()},
                min_players=int(players["min"]),
                max_players=int(players["max"]),
                buses_per_player=int(data["buses_per_player"]),
                cards_per_color=int(cards["per_color"]),
                bus_cards=int(cards["buses"]),
                hand_size=int(data["hand_size"]),
                face_up=int(data["face_up"]),
                face_up_bus_limit=int(data["face_up_bus_limit"]),
                tickets_dealt=int(data["tickets_dealt"]),
                tickets_keep_min=int(data["tickets_keep_min"]),
                tickets_draw=int(data["tickets_draw"]),
                tickets_draw_keep_min=int(data["tickets_draw_keep_min"]),
                final_round_buses=int(data["final_round_buses"]),
                doubles_closed_up_to_players=int(data["doubles_closed_up_to_players"]),
                routes_at=routes_by_end(locations, routes.values()),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"London map data is malformed: {exc}") from exc

    def district(self, number: int) -> District:
        for d in self.districts:
            if d.number == number:
                return d
        raise NotationError(f"unknown London district {number!r}")


@cache
def london_map() -> LondonMap:
    """The Ticket to Ride: London board (read once from the package data)."""
    from companion.data import load_json

    return LondonMap.from_dict(load_json("london.json"))
