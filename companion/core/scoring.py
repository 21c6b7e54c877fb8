"""Final scoring of a finished Europe game.

Each station lets its owner borrow one route of another player at the station's city for
tickets (the same route for every ticket); the choice is made at the end to the owner's best
advantage: the most ticket points, then the most completed tickets.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .board import GameMap, Route
from .cards import PLAYER_COLORS
from .errors import InvalidStateError
from .longest import longest_trail


@dataclass(frozen=True, slots=True)
class PlayerEnd:
    """One player's position at the end of the game: what is on the table and in hand."""

    color: str
    name: str = ""
    routes: tuple[str, ...] = ()
    stations: tuple[str, ...] = ()
    tickets: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name or self.color,
            "color": self.color,
            "routes": list(self.routes),
            "stations": list(self.stations),
            "tickets": list(self.tickets),
        }


@dataclass(slots=True)
class TicketResult:
    id: str
    completed: bool
    points: int  # signed: +value when completed, -value otherwise
    path: tuple[str, ...] = ()  # route ids joining the two cities (own and borrowed)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "completed": self.completed,
            "points": self.points,
            "path": list(self.path),
        }


@dataclass(slots=True)
class PlayerScore:
    name: str
    color: str
    route_points: int
    ticket_points: int
    tickets: list[TicketResult]
    stations_built: int
    station_points: int
    station_routes: dict[str, str | None]
    longest_route: int
    longest_trail: tuple[str, ...]
    european_express: bool
    express_points: int
    total: int
    rank: int = 0
    routes: tuple[str, ...] = ()
    trains_used: int = 0

    @property
    def tickets_completed(self) -> int:
        return sum(1 for t in self.tickets if t.completed)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "color": self.color,
            "route_points": self.route_points,
            "ticket_points": self.ticket_points,
            "tickets": [t.to_json() for t in self.tickets],
            "tickets_completed": self.tickets_completed,
            "stations_built": self.stations_built,
            "station_points": self.station_points,
            "station_routes": dict(self.station_routes),
            "longest_route": self.longest_route,
            "longest_trail": list(self.longest_trail),
            "european_express": self.european_express,
            "express_points": self.express_points,
            "trains_used": self.trains_used,
            "total": self.total,
            "rank": self.rank,
        }


@dataclass(slots=True)
class FinalScore:
    players: list[PlayerScore]
    winners: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"players": [p.to_json() for p in self.players], "winners": list(self.winners)}

    def by_color(self, color: str) -> PlayerScore:
        for p in self.players:
            if p.color == color:
                return p
        raise KeyError(color)


# --- validation -------------------------------------------------------------------------


def validate_end_state(game_map: GameMap, players: Sequence[PlayerEnd]) -> None:
    """Raise InvalidStateError for a position that no legal game can reach."""
    if not players:
        raise InvalidStateError("the state has no players")
    if len(players) > 5:
        raise InvalidStateError(f"Ticket to Ride: Europe has 2-5 players, got {len(players)}")
    colors = [p.color for p in players]
    for c in colors:
        if c not in PLAYER_COLORS:
            raise InvalidStateError(
                f"unknown player colour {c!r}: expected one of {', '.join(PLAYER_COLORS)}"
            )
    dup = [c for c, n in Counter(colors).items() if n > 1]
    if dup:
        raise InvalidStateError(f"two players have the colour {dup[0]}")

    route_owner: dict[str, str] = {}
    station_owner: dict[str, str] = {}
    ticket_holder: dict[str, str] = {}
    for p in players:
        trains = 0
        for rid in p.routes:
            if rid not in game_map.routes:
                raise InvalidStateError(f"unknown route id {rid!r} (player {p.color})")
            if rid in route_owner:
                other = route_owner[rid]
                whom = "twice by " + p.color if other == p.color else f"by {other} and {p.color}"
                raise InvalidStateError(f"route {rid} is owned {whom}")
            route_owner[rid] = p.color
            trains += game_map.routes[rid].length
        if trains > game_map.trains_per_player:
            raise InvalidStateError(
                f"{p.color} has {trains} trains on the board; each player has only "
                f"{game_map.trains_per_player}"
            )
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
        for tid in p.tickets:
            if tid not in game_map.tickets:
                raise InvalidStateError(f"unknown ticket id {tid!r} (player {p.color})")
            if tid in ticket_holder:
                other = ticket_holder[tid]
                whom = "twice by " + p.color if other == p.color else f"by {other} and {p.color}"
                raise InvalidStateError(f"ticket {tid} is held {whom}")
            ticket_holder[tid] = p.color

    for rid, owner in route_owner.items():
        twin = game_map.routes[rid].twin
        if twin is None or twin not in route_owner or rid > twin:
            continue
        if route_owner[twin] == owner:
            raise InvalidStateError(
                f"{owner} owns both {rid} and {twin}: one player may not claim both routes of a "
                "double route"
            )
        if len(players) <= 3:
            raise InvalidStateError(
                f"both {rid} and {twin} are claimed, but with {len(players)} players only one "
                "route of a double route may be used"
            )


# --- tickets and stations ----------------------------------------------------------------


class _Components:
    """Connected components of one player's own routes."""

    def __init__(self, routes: Sequence[Route]) -> None:
        self.parent: dict[str, str] = {}
        for r in routes:
            self.union(r.a, r.b)

    def find(self, x: str) -> str:
        parent = self.parent
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while x != root:
            nxt = parent.get(x, x)
            parent[x] = root
            x = nxt
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _completed_with(
    comps: _Components,
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


def _path(graph: Mapping[str, list[tuple[str, Route]]], start: str, goal: str) -> tuple[str, ...]:
    """Fewest-routes path from start to goal in ``graph`` (breadth first)."""
    if start == goal:
        return ()
    prev: dict[str, tuple[str, Route]] = {}
    seen = {start}
    queue = deque([start])
    while queue:
        city = queue.popleft()
        for nxt, route in graph.get(city, ()):
            if nxt in seen:
                continue
            seen.add(nxt)
            prev[nxt] = (city, route)
            if nxt == goal:
                out: list[str] = []
                while nxt != start:
                    city, route = prev[nxt]
                    out.append(route.id)
                    nxt = city
                return tuple(reversed(out))
            queue.append(nxt)
    return ()


def _best_stations(
    game_map: GameMap,
    player: PlayerEnd,
    own: Sequence[Route],
    route_owner: Mapping[str, str],
) -> tuple[dict[str, str | None], list[TicketResult]]:
    tickets = [game_map.tickets[t] for t in player.tickets]
    pairs = [(t.a, t.b, t.points) for t in tickets]
    comps = _Components(own)

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

    graph: dict[str, list[tuple[str, Route]]] = defaultdict(list)
    for r in [*own, *borrowed]:
        graph[r.a].append((r.b, r))
        graph[r.b].append((r.a, r))
    results = []
    for i, t in enumerate(tickets):
        done = bool(mask >> i & 1)
        results.append(
            TicketResult(
                id=t.id,
                completed=done,
                points=t.points if done else -t.points,
                path=_path(graph, t.a, t.b) if done else (),
            )
        )
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
        ticket_points = sum(t.points for t in tickets)
        unused = game_map.stations_per_player - len(p.stations)
        scores.append(
            PlayerScore(
                name=p.name or p.color,
                color=p.color,
                route_points=route_points,
                ticket_points=ticket_points,
                tickets=tickets,
                stations_built=len(p.stations),
                station_points=unused * game_map.unused_station_points,
                station_routes=station_routes,
                longest_route=trail.length,
                longest_trail=trail.routes,
                european_express=False,
                express_points=0,
                total=0,
                routes=tuple(p.routes),
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

    ordered = sorted(scores, key=key)
    for i, s in enumerate(ordered):
        s.rank = ordered[i - 1].rank if i and key(ordered[i - 1]) == key(s) else i + 1
    return FinalScore(players=scores, winners=[s.color for s in ordered if s.rank == 1])
