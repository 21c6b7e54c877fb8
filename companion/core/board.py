"""The map: cities, routes, tickets and ticket variants, as immutable value types."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from .cards import Card, TrainCard
from .errors import NotationError
from .networks import Link

C = TypeVar("C", bound=TrainCard)


class RouteBasics(Generic[C]):
    """What every board's route does with its ends and colour; each board's route (a frozen
    dataclass) declares the fields and puts this first in its bases."""

    __slots__ = ()
    id: str
    a: str
    b: str
    color: C | None

    @property
    def is_grey(self) -> bool:
        return self.color is None

    @property
    def color_name(self) -> str:
        return "grey" if self.color is None else self.color.value

    def other_end(self, end: str) -> str:
        if end == self.a:
            return self.b
        if end == self.b:
            return self.a
        raise ValueError(f"{end} is not an end of {self.id}")


R = TypeVar("R", bound=Link)
T = TypeVar("T")


def routes_by_end(ends: Iterable[str], routes: Iterable[R]) -> dict[str, tuple[R, ...]]:
    """For each city/location, the routes that end there (in the order given)."""
    at: dict[str, list[R]] = {end: [] for end in ends}
    for r in routes:
        at[r.a].append(r)
        at[r.b].append(r)
    return {end: tuple(rs) for end, rs in at.items()}


class MapLookups(Generic[R, T]):
    """Look-ups every board's map offers; unknown ids are a NotationError naming the board
    (LABEL: "" for Europe, "London ")."""

    LABEL: ClassVar[str] = ""
    routes: Mapping[str, R]
    tickets: Mapping[str, T]
    route_points: Mapping[int, int]

    def route(self, route_id: str) -> R:
        try:
            return self.routes[route_id]
        except KeyError:
            raise NotationError(f"unknown {self.LABEL}route id {route_id!r}") from None

    def ticket(self, ticket_id: str) -> T:
        try:
            return self.tickets[ticket_id]
        except KeyError:
            raise NotationError(f"unknown {self.LABEL}ticket id {ticket_id!r}") from None

    def points_for(self, route: R) -> int:
        return self.route_points[route.length]

    def twin_of(self, route: R) -> R | None:
        return None if route.twin is None else self.routes[route.twin]


@dataclass(frozen=True, slots=True)
class City:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Route(RouteBasics[Card]):
    """One route between two cities. ``color`` is None for grey routes."""

    id: str
    a: str
    b: str
    length: int
    color: Card | None
    tunnel: bool = False
    locomotives: int = 0
    twin: str | None = None

    @property
    def ferry(self) -> bool:
        return self.locomotives > 0

    @property
    def cities(self) -> tuple[str, str]:
        return (self.a, self.b)


@dataclass(frozen=True, slots=True)
class Ticket:
    id: str
    a: str
    b: str
    points: int
    long: bool = False
    decks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TicketSetup:
    long_dealt: int
    regular_dealt: int
    keep_min: int
    long_keep_max: int | None
    unkept_long: str  # "box" or "bottom"
    unkept_regular: str


@dataclass(frozen=True, slots=True)
class Variant:
    """A ticket variant: which decks are used and the deal/keep numbers."""

    id: str
    name: str
    decks: tuple[str, ...]
    setup: TicketSetup
    draw: int
    draw_keep_min: int


@dataclass(frozen=True)
class GameMap(MapLookups[Route, Ticket]):
    """All facts of one map. Build it with :meth:`from_dict` from the data file."""

    id: str
    name: str
    cities: Mapping[str, City]
    routes: Mapping[str, Route]
    tickets: Mapping[str, Ticket]
    variants: Mapping[str, Variant]
    route_points: Mapping[int, int]
    trains_per_player: int = 45
    stations_per_player: int = 3
    station_costs: tuple[int, ...] = (1, 2, 3)
    unused_station_points: int = 4
    express_bonus: int = 10
    final_round_trains: int = 2
    hand_size: int = 4
    face_up: int = 5
    face_up_locomotive_limit: int = 3
    tunnel_reveal: int = 3
    cards_per_color: int = 12
    locomotive_cards: int = 14
    routes_at: Mapping[str, tuple[Route, ...]] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameMap:
        try:
            cities = {c["id"]: City(c["id"], c["name"]) for c in data["cities"]}
            routes: dict[str, Route] = {}
            for r in data["routes"]:
                color = None if r["color"] == "grey" else Card(r["color"])
                routes[r["id"]] = Route(
                    id=r["id"],
                    a=r["a"],
                    b=r["b"],
                    length=int(r["length"]),
                    color=color,
                    tunnel=bool(r.get("tunnel", False)),
                    locomotives=int(r.get("locomotives", 0)),
                    twin=r.get("twin"),
                )
            tickets = {
                t["id"]: Ticket(
                    t["id"], t["a"], t["b"], int(t["points"]), bool(t["long"]), tuple(t["decks"])
                )
                for t in data["tickets"]
            }
            variants = {}
            for vid, v in data["variants"].items():
                s = v["setup"]
                variants[vid] = Variant(
                    id=vid,
                    name=v["name"],
                    decks=tuple(v["decks"]),
                    setup=TicketSetup(
                        long_dealt=int(s["long_dealt"]),
                        regular_dealt=int(s["regular_dealt"]),
                        keep_min=int(s["keep_min"]),
                        long_keep_max=s["long_keep_max"],
                        unkept_long=s["unkept"]["long"],
                        unkept_regular=s["unkept"]["regular"],
                    ),
                    draw=int(v["draw"]),
                    draw_keep_min=int(v["draw_keep_min"]),
                )
            cards = data["train_cards"]
            return cls(
                id=data["map"],
                name=data["name"],
                cities=cities,
                routes=routes,
                tickets=tickets,
                variants=variants,
                route_points={int(k): int(v) for k, v in data["route_points"].items()},
                trains_per_player=int(data["trains_per_player"]),
                stations_per_player=int(data["stations_per_player"]),
                station_costs=tuple(int(x) for x in data["station_cost_cards"]),
                unused_station_points=int(data["unused_station_points"]),
                express_bonus=int(data["express_bonus"]),
                final_round_trains=int(data["final_round_trains"]),
                hand_size=int(data["hand_size"]),
                face_up=int(data["face_up"]),
                face_up_locomotive_limit=int(data["face_up_locomotive_limit"]),
                tunnel_reveal=int(data["tunnel_reveal"]),
                cards_per_color=int(cards["per_color"]),
                locomotive_cards=int(cards["locomotives"]),
                routes_at=routes_by_end(cities, routes.values()),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"map data is malformed: {exc}") from exc

    # --- look-ups with plain errors (route, ticket: MapLookups) -----------------------
    def city(self, city_id: str) -> City:
        try:
            return self.cities[city_id]
        except KeyError:
            raise NotationError(f"unknown city id {city_id!r}") from None

    def variant(self, variant_id: str) -> Variant:
        try:
            return self.variants[variant_id]
        except KeyError:
            known = ", ".join(sorted(self.variants))
            raise NotationError(
                f"unknown variant {variant_id!r}: expected one of {known}"
            ) from None

    def tickets_of_variant(self, variant: Variant) -> tuple[list[Ticket], list[Ticket]]:
        """The (long, regular) tickets of a variant, in data-file order."""
        chosen = [t for t in self.tickets.values() if any(d in t.decks for d in variant.decks)]
        if "big_cities" in variant.decks:
            chosen = [t for t in chosen if not t.long]
        return [t for t in chosen if t.long], [t for t in chosen if not t.long]

    def route_ids(self) -> Sequence[str]:
        return list(self.routes)
