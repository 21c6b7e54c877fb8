"""The map: cities, routes, tickets and ticket variants, as immutable value types."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

from .cards import Card, TrainCard
from .errors import NotationError
from .networks import Link

C = TypeVar("C", bound=TrainCard)


@dataclass(frozen=True, slots=True)
class RouteBasics(Generic[C]):
    """What every board's route has and does with its ends and colour (``color`` is None for
    grey routes); each board's route (a frozen dataclass) adds its own fields."""

    id: str
    a: str
    b: str
    length: int
    color: C | None
    twin: str | None = None

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
V = TypeVar("V")


def routes_by_end(ends: Iterable[str], routes: Iterable[R]) -> dict[str, tuple[R, ...]]:
    """For each city/location, the routes that end there (in the order given)."""
    at: dict[str, list[R]] = {end: [] for end in ends}
    for r in routes:
        at[r.a].append(r)
        at[r.b].append(r)
    return {end: tuple(rs) for end, rs in at.items()}


def map_fields(data: Mapping[str, Any], numbers: Iterable[str]) -> dict[str, Any]:
    """What every board's map reads alike from its data file: id, name, the route table and
    the whole numbers of its rules named in ``numbers`` (each under its own name)."""
    return {
        "id": data["map"],
        "name": data["name"],
        "route_points": {int(k): int(v) for k, v in data["route_points"].items()},
        **{name: int(data[name]) for name in numbers},
    }


def route_fields(r: Mapping[str, Any], card: Callable[[str], TrainCard]) -> dict[str, Any]:
    """The fields every board's route reads alike from its data file."""
    return {
        "id": r["id"],
        "a": r["a"],
        "b": r["b"],
        "length": int(r["length"]),
        "color": None if r["color"] == "grey" else card(r["color"]),
        "twin": r.get("twin"),
    }


def look_up(table: Mapping[str, V], key: str, what: str) -> V:
    """``table[key]``, an unknown key a NotationError: "unknown <what> 'key'"."""
    try:
        return table[key]
    except KeyError:
        raise NotationError(f"unknown {what} {key!r}") from None


@dataclass(frozen=True)
class MapLookups(Generic[R, T]):
    """What every board's map has, and the look-ups it offers; unknown ids are a
    NotationError naming the board (LABEL: "" for Europe, "London ")."""

    LABEL: ClassVar[str] = ""
    ENDS: ClassVar[str] = "cities"  # the field that holds where routes may end
    DOUBLES_CLOSED: ClassVar[str] = (  # the other route of a double is closed: why
        "{twin} is taken and with {n} players only one route of a double route may be used"
    )
    # the data's box of cards, the field of the wild cards' count and its key in the box
    CARDS: ClassVar[tuple[str, str, str]] = ("train_cards", "locomotive_cards", "locomotives")
    id: str
    name: str
    routes: Mapping[str, R]
    tickets: Mapping[str, T]
    route_points: Mapping[int, int]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The map from its data file: the board's own parts (``_read``), and what every board
        reads alike (:func:`map_fields`, the cards): every other whole number of its rules is
        read under its field's name. Anything missing or malformed is a NotationError."""
        try:
            box, wilds, wilds_key = cls.CARDS
            own = {
                **cls._read(data),
                "cards_per_color": int(data[box]["per_color"]),
                wilds: int(data[box][wilds_key]),
            }
            numbers = [f.name for f in fields(cast(Any, cls)) if f.type == "int"]
            return cls(**map_fields(data, [n for n in numbers if n not in own]), **own)
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"{cls.LABEL}map data is malformed: {exc}") from exc

    @classmethod
    def _read(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    @cached_property
    def routes_at(self) -> Mapping[str, tuple[R, ...]]:
        """For each city (or location), the routes that end there, in map order."""
        ends: Mapping[str, Any] = getattr(self, self.ENDS)
        return routes_by_end(ends, self.routes.values())

    def route(self, route_id: str) -> R:
        return look_up(self.routes, route_id, f"{self.LABEL}route id")

    def ticket(self, ticket_id: str) -> T:
        return look_up(self.tickets, ticket_id, f"{self.LABEL}ticket id")

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
    """One route between two cities, maybe a tunnel or a ferry."""

    tunnel: bool = False
    locomotives: int = 0

    @property
    def ferry(self) -> bool:
        return self.locomotives > 0

    @property
    def cities(self) -> tuple[str, str]:
        return (self.a, self.b)


@dataclass(frozen=True, slots=True)
class TicketBasics:
    """What every board's ticket has: the two places to join and its points."""

    id: str
    a: str
    b: str
    points: int


@dataclass(frozen=True, slots=True)
class Ticket(TicketBasics):
    """A Europe ticket: long or regular, and the decks (variants) it belongs to."""

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

    cities: Mapping[str, City]
    variants: Mapping[str, Variant]
    trains_per_player: int = 45
    stations_per_player: int = 3
    unused_station_points: int = 4
    express_bonus: int = 10
    final_round_trains: int = 2
    hand_size: int = 4
    face_up: int = 5
    face_up_locomotive_limit: int = 3
    tunnel_reveal: int = 3
    cards_per_color: int = 12
    locomotive_cards: int = 14
    station_costs: tuple[int, ...] = (1, 2, 3)

    @classmethod
    def _read(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        cities = {c["id"]: City(c["id"], c["name"]) for c in data["cities"]}
        routes = {
            r["id"]: Route(
                **route_fields(r, Card),
                tunnel=bool(r.get("tunnel", False)),
                locomotives=int(r.get("locomotives", 0)),
            )
            for r in data["routes"]
        }
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
        return {
            "cities": cities,
            "routes": routes,
            "tickets": tickets,
            "variants": variants,
            "station_costs": tuple(int(x) for x in data["station_cost_cards"]),
        }

    # --- look-ups with plain errors (route, ticket: MapLookups) -----------------------
    def city(self, city_id: str) -> City:
        return look_up(self.cities, city_id, "city id")

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
