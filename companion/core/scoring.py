"""Final scoring of a finished Europe game, and the pieces every board's scoring shares.

Each station lets its owner borrow one route of another player at the station's city for
tickets (the same route for every ticket); the choice is made at the end to the owner's best
advantage: the most ticket points, then the most completed tickets.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Generic, Protocol, Self, TypeVar

from .board import GameMap, Route
from .cards import PLAYER_COLORS
from .errors import InvalidStateError
from .longest import longest_trail
from .networks import Graph, Link, Networks, route_graph, shortest_path
from .records import fields_json
from .seats import Seat


@dataclass(frozen=True, slots=True)
class SeatEnd:
    """What every board's player shows at the end: colour, name, routes, and the board's own
    tuples of ids after them (Europe: stations and tickets; London: tickets)."""

    color: str
    name: str = ""
    routes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name or self.color,
            "color": self.color,
            **{f.name: list(getattr(self, f.name)) for f in fields(self)[2:]},
        }

    @classmethod
    def of(cls, seat: Seat) -> Self:
        """The end position of a seat (simulated or tracked) as the board's game has it."""
        ids = {f.name: tuple(getattr(seat, f.name)) for f in fields(cls)[2:]}
        return cls(seat.color, seat.name, **ids)


@dataclass(frozen=True, slots=True)
class PlayerEnd(SeatEnd):
    """One player's position at the end of the game: what is on the table and in hand."""

    stations: tuple[str, ...] = ()
    tickets: tuple[str, ...] = ()


E = TypeVar("E")
F = TypeVar("F")


class Results(Generic[E, F]):
    """The results of any board's game or table (simulated or tracked): each player's end
    position (``_end``, the board's ``PlayerEnd.of``) and the final score (``_score``, the
    board's ``score_final``)."""

    map: Any
    players: list[Any]
    _end: Callable[[Any], E]
    _score: Callable[[Any, list[E]], F]

    def end_positions(self) -> list[E]:
        return [self._end(p) for p in self.players]

    def final_score(self) -> F:
        return self._score(self.map, self.end_positions())


@dataclass(slots=True)
class TicketResult:
    id: str
    completed: bool
    points: int  # signed: +value when completed, -value otherwise
    path: tuple[str, ...] = ()  # route ids joining the two cities (own and borrowed)

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass(slots=True, kw_only=True)
class ScoreSheet:
    """One player's final score on any board; each board adds its own items (stations and the
    longest route, districts) between the tickets and the total."""

    name: str
    color: str
    route_points: int
    ticket_points: int
    tickets: list[TicketResult]
    total: int
    rank: int = 0
    routes: tuple[str, ...] = ()

    @classmethod
    def of(cls, p: SeatEnd, route_points: int, tickets: list[TicketResult], **items: Any) -> Self:
        """The sheet of player ``p``: what every board scores alike, and the board's items."""
        return cls(
            name=p.name or p.color,
            color=p.color,
            route_points=route_points,
            ticket_points=sum(t.points for t in tickets),
            tickets=tickets,
            routes=tuple(p.routes),
            **items,
        )

    @property
    def tickets_completed(self) -> int:
        return sum(1 for t in self.tickets if t.completed)

    def _items_json(self) -> dict[str, Any]:
        """The board's items, between ``tickets_completed`` and ``total`` in the JSON form."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return {
            **fields_json(self, ("name", "color", "route_points", "ticket_points")),
            "tickets": [t.to_json() for t in self.tickets],
            "tickets_completed": self.tickets_completed,
            **self._items_json(),
            **fields_json(self, ("total", "rank")),
        }


@dataclass(slots=True, kw_only=True)
class PlayerScore(ScoreSheet):
    stations_built: int
    station_points: int
    station_routes: dict[str, str | None]
    longest_route: int
    longest_trail: tuple[str, ...]
    european_express: bool
    express_points: int
    trains_used: int = 0

    def _items_json(self) -> dict[str, Any]:
        """The fields this sheet adds to every board's, in their order."""
        own = fields(self)[len(fields(ScoreSheet)) :]
        return fields_json(self, (f.name for f in own))


class Scored(Protocol):
    """A player's score as the shared standings need it."""

    @property
    def color(self) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


S = TypeVar("S", bound=Scored)


@dataclass(slots=True)
class Standings(Generic[S]):
    """Every player's score and the winners' colours (any board)."""

    players: list[S]
    winners: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"players": [p.to_json() for p in self.players], "winners": list(self.winners)}

    def by_color(self, color: str) -> S:
        for p in self.players:
            if p.color == color:
                return p
        raise KeyError(color)


@dataclass(slots=True)
class FinalScore(Standings[PlayerScore]):
    """The final score of a Europe game."""


def rank_players(scores: Sequence[Any], key: Callable[[Any], tuple[int, ...]]) -> list[str]:
    """Set each score's ``rank`` (equal keys share a rank) and return the winners' colours."""
    ordered = sorted(scores, key=key)
    for i, s in enumerate(ordered):
        s.rank = ordered[i - 1].rank if i and key(ordered[i - 1]) == key(s) else i + 1
    return [s.color for s in ordered if s.rank == 1]


def leaders(scores: Mapping[str, int], order: Iterable[str] | None = None) -> list[str]:
    """Who has the highest of ``scores`` (all of them on a tie), in ``order`` (else the
    scores' own)."""
    top = max(scores.values())
    return [k for k in (scores if order is None else order) if scores[k] == top]


def ticket_result(
    ticket_id: str, points: int, done: bool, graph: Graph[Any], a: str, b: str
) -> TicketResult:
    """A ticket held at the end: +points and the path when completed, -points otherwise."""
    return TicketResult(
        id=ticket_id,
        completed=done,
        points=points if done else -points,
        path=shortest_path(graph, a, b) if done else (),
    )


# --- validation -------------------------------------------------------------------------


def check_end_players(players: Sequence[Any], low: int, high: int, game: str) -> None:
    """At most ``high`` players (fewer than ``low`` may be scored), known distinct colours."""
    if not players:
        raise InvalidStateError("the state has no players")
    if len(players) > high:
        raise InvalidStateError(f"{game} has {low}-{high} players, got {len(players)}")
    colors = [p.color for p in players]
    for c in colors:
        if c not in PLAYER_COLORS:
            raise InvalidStateError(
                f"unknown player colour {c!r}: expected one of {', '.join(PLAYER_COLORS)}"
            )
    dup = [c for c, n in Counter(colors).items() if n > 1]
    if dup:
        raise InvalidStateError(f"two players have the colour {dup[0]}")


def check_end_routes(
    color: str,
    route_ids: Sequence[str],
    routes: Mapping[str, Link],
    route_owner: dict[str, str],
    pieces: tuple[str, int],
    label: str = "",
) -> None:
    """Record ``color``'s routes in ``route_owner``: known ids, owned once, within the player's
    ``pieces`` (("trains", 45) or ("buses", 17)). ``label`` prefixes "route id" ("London ")."""
    _record_once(color, route_ids, routes, route_owner, f"{label}route", "owned")
    used = sum(routes[rid].length for rid in route_ids)
    noun, per_player = pieces
    if used > per_player:
        raise InvalidStateError(
            f"{color} has {used} {noun} on the board; each player has only {per_player}"
        )


def check_end_tickets(
    color: str,
    ticket_ids: Sequence[str],
    tickets: Mapping[str, object],
    ticket_holder: dict[str, str],
    label: str = "",
) -> None:
    """Record ``color``'s tickets in ``ticket_holder``: known ids, each held once."""
    _record_once(color, ticket_ids, tickets, ticket_holder, f"{label}ticket", "held")


def _record_once(
    color: str,
    ids: Sequence[str],
    known: Mapping[str, object],
    whose: dict[str, str],
    what: str,
    verb: str,
) -> None:
    """Record ``color`` as the one whose each of ``ids`` (known ``what``s: "route", "London
    ticket") is; an unknown id, or one already recorded, is an impossible end state."""
    for i in ids:
        if i not in known:
            raise InvalidStateError(f"unknown {what} id {i!r} (player {color})")
        if i in whose:
            other = whose[i]
            whom = "twice by " + color if other == color else f"by {other} and {color}"
            raise InvalidStateError(f"{what.split()[-1]} {i} is {verb} {whom}")
        whose[i] = color


def check_end_doubles(
    route_owner: Mapping[str, str],
    routes: Mapping[str, Link],
    n_players: int,
    closed_up_to: int,
    closed: str,
) -> None:
    """No player on both routes of a double; with ``closed_up_to`` players or fewer, never both
    routes of a double taken (``closed`` says so, with ``{a}``, ``{b}`` and ``{n}``)."""
    for rid, owner in route_owner.items():
        twin = routes[rid].twin
        if twin is None or twin not in route_owner or rid > twin:
            continue
        if route_owner[twin] == owner:
            raise InvalidStateError(
                f"{owner} owns both {rid} and {twin}: one player may not claim both routes of a "
                "double route"
            )
        if n_players <= closed_up_to:
            raise InvalidStateError(closed.format(a=rid, b=twin, n=n_players))


def validate_end_state(game_map: GameMap, players: Sequence[PlayerEnd]) -> None:
    """Raise InvalidStateError for a position that no legal game can reach."""
    check_end_players(players, 2, 5, "Ticket to Ride: Europe")
    route_owner: dict[str, str] = {}
    station_owner: dict[str, str] = {}
    ticket_holder: dict[str, str] = {}
    pieces = ("trains", game_map.trains_per_player)
    for p in players:
        check_end_routes(p.color, p.routes, game_map.routes, route_owner, pieces)
        if len(p.stations) > game_map.stations_per_player:
            raise InvalidStateError(
                f"{p.color} has {len(p.stations)} stations; each player has only "
                f"{game_map.stations_per_player}"
            )
        for city in p.stations:
            if city not in game_map.cities:
                raise InvalidStateError(f"unknown city id {city!r} (station of {p.color})")
            if city in station_owner:
                raise InvalidStateError(
                    f"two stations on {city} ({station_owner[city]} and {p.color}); "
                    "a city holds one station at most"
                )
            station_owner[city] = p.color
        check_end_tickets(p.color, p.tickets, game_map.tickets, ticket_holder)
    check_end_doubles(
        route_owner,
        game_map.routes,
        len(players),
        3,
        "both {a} and {b} are claimed, but with {n} players only one route of a double route "
        "may be used",
    )


# --- tickets and stations ----------------------------------------------------------------


def _completed_with(
    comps: Networks,
    borrowed: Sequence[Route],
    tickets: Sequence[tuple[str, str, int]],
) -> tuple[int, int, int]:
    """(points sum over completed, number completed, bitmask completed) with borrowed routes."""
    extra: dict[str, str] = {}

    def find(x: str) -> str:
        x = comps.find(x)
        while x in extra:
            x = extra[x]
        return x

    for r in borrowed:
        ra, rb = find(r.a), find(r.b)
        if ra != rb:
            extra[ra] = rb
    points = count = mask = 0
    for i, (a, b, value) in enumerate(tickets):
        if find(a) == find(b):
            points += value
            count += 1
            mask |= 1 << i
    return points, count, mask


def _joined_value(
    joins: Sequence[tuple[str, str]], pairs: Sequence[tuple[str, str, int]]
) -> tuple[int, int]:
    """(points, count) of the ``pairs`` of network roots that ``joins`` connect."""
    link: dict[str, str] = {}
    for a, b in joins:
        while a in link:
            a = link[a]
        while b in link:
            b = link[b]
        if a != b:
            link[a] = b
    points = count = 0
    for a, b, value in pairs:
        while a in link:
            a = link[a]
        while b in link:
            b = link[b]
        if a == b:
            points += value
            count += 1
    return points, count


def _best_stations(
    game_map: GameMap,
    player: PlayerEnd,
    own: Sequence[Route],
    route_owner: Mapping[str, str],
) -> tuple[dict[str, str | None], list[TicketResult]]:
    tickets = [game_map.tickets[t] for t in player.tickets]
    pairs = [(t.a, t.b, t.points) for t in tickets]
    comps = Networks(own)

    # For each station, the other players' routes at its city that could matter: a route
    # whose far end is already joined to the station's city by own routes adds nothing, and
    # routes to cities of the same own network are interchangeable (the first by id stands).
    choices: list[list[Route | None]] = []
    for city in player.stations:
        by_component: dict[str, Route] = {}
        home = comps.find(city)
        for r in sorted(game_map.routes_at[city], key=lambda r: r.id):
            owner = route_owner.get(r.id)
            if owner is None or owner == player.color:
                continue
            far = comps.find(r.other_end(city))
            if far != home:
                by_component.setdefault(far, r)
        choices.append([None, *by_component.values()])

    best_key = (-1, -1)
    best_combo: tuple[Route | None, ...] = tuple(None for _ in player.stations)
    # Tickets the own routes already complete stay complete; search only over the rest, on
    # the roots of the own networks (borrowed routes join networks, nothing else changes).
    _, _, base_mask = _completed_with(comps, [], pairs)
    find = comps.find
    open_roots = [
        (find(a), find(b), value) for i, (a, b, value) in enumerate(pairs) if not base_mask >> i & 1
    ]
    if open_roots and any(len(c) > 1 for c in choices):
        for combo in itertools.product(*choices):
            joins = [(find(r.a), find(r.b)) for r in combo if r is not None]
            key = _joined_value(joins, open_roots)
            if key > best_key:
                best_key = key
                best_combo = combo
                if key[1] == len(open_roots):
                    break

    borrowed = [r for r in best_combo if r is not None]
    _, _, mask = _completed_with(comps, borrowed, pairs)
    # Report only the borrowed routes that some completed ticket needs.
    station_routes: dict[str, str | None] = {}
    for city, route in zip(player.stations, best_combo, strict=True):
        if route is not None:
            without = [r for r in borrowed if r is not route]
            _, _, mask_without = _completed_with(comps, without, pairs)
            if mask_without == mask:
                borrowed = without
                route = None
        station_routes[city] = None if route is None else route.id

    graph = route_graph([*own, *borrowed])
    results = [
        ticket_result(t.id, t.points, bool(mask >> i & 1), graph, t.a, t.b)
        for i, t in enumerate(tickets)
    ]
    return station_routes, results


# --- the whole score ---------------------------------------------------------------------


def score_final(game_map: GameMap, players: Sequence[PlayerEnd]) -> FinalScore:
    """Score a finished game. Validates the position first (InvalidStateError)."""
    validate_end_state(game_map, players)
    route_owner = {rid: p.color for p in players for rid in p.routes}
    scores: list[PlayerScore] = []
    for p in players:
        own = [game_map.routes[r] for r in p.routes]
        station_routes, tickets = _best_stations(game_map, p, own, route_owner)
        trail = longest_trail(own)
        route_points = sum(game_map.points_for(r) for r in own)
        unused = game_map.stations_per_player - len(p.stations)
        scores.append(
            PlayerScore.of(
                p,
                route_points,
                tickets,
                stations_built=len(p.stations),
                station_points=unused * game_map.unused_station_points,
                station_routes=station_routes,
                longest_route=trail.length,
                longest_trail=trail.routes,
                european_express=False,
                express_points=0,
                total=0,
                trains_used=sum(r.length for r in own),
            )
        )
    longest = max(s.longest_route for s in scores)
    for s in scores:
        if longest > 0 and s.longest_route == longest:
            s.european_express = True
            s.express_points = game_map.express_bonus
        s.total = s.route_points + s.ticket_points + s.station_points + s.express_points

    def key(s: PlayerScore) -> tuple[int, int, int, int]:
        return (-s.total, -s.tickets_completed, s.stations_built, 0 if s.european_express else 1)

    return FinalScore(players=scores, winners=rank_players(scores, key))


class EuropeResults(Results[PlayerEnd, FinalScore]):
    """A Europe game's or table's results."""

    _end = staticmethod(PlayerEnd.of)
    _score = staticmethod(score_final)
