"""The London map: locations, districts, routes and tickets, as immutable value types.

Built from ``companion/data/london.json`` (written by tools/build_data.py). Every rules number
(buses, cards, deal and keep counts, the route table, district points) is a data value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from companion.core.board import MapLookups, RouteBasics, TicketBasics, route_fields
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
    """One route between two locations."""


@dataclass(frozen=True, slots=True)
class Ticket(TicketBasics):
    """A London ticket."""


@dataclass(frozen=True)
class LondonMap(MapLookups[Route, Ticket]):
    """All facts of the London board and the numbers of its rules."""

    LABEL: ClassVar[str] = "London "
    ENDS: ClassVar[str] = "locations"
    DOUBLES_CLOSED: ClassVar[str] = (
        "{twin} is taken and in a {n}-player game the other route of a double route is closed"
    )

    locations: Mapping[str, Location]
    districts: tuple[District, ...]
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
    CARDS: ClassVar[tuple[str, str, str]] = ("transport_cards", "bus_cards", "buses")

    @classmethod
    def _read(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        locations = {
            loc["id"]: Location(loc["id"], loc["name"], loc.get("district"))
            for loc in data["locations"]
        }
        districts = tuple(
            District(int(d["district"]), int(d["points"]), tuple(d["locations"]))
            for d in data["districts"]
        )
        routes = {r["id"]: Route(**route_fields(r, Card)) for r in data["routes"]}
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
        players = data["players"]
        return {
            "locations": locations,
            "districts": districts,
            "routes": routes,
            "tickets": tickets,
            "min_players": int(players["min"]),
            "max_players": int(players["max"]),
        }

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
