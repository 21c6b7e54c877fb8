"""Final scoring of a finished London game.

Each player scores the route table for every own route, +/- every ticket held (completed when
the two locations are joined by a continuous line of the player's own buses), and the points
of every district whose locations the player's own buses all join into one network (the
routes between them need not all be taken). Ties go to the most completed tickets, then stay
shared. No longest route, no stations.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.core.cards import PLAYER_COLORS
from companion.core.errors import InvalidStateError, NotationError

from .board import LondonMap, Route


@dataclass(frozen=True, slots=True)
class PlayerEnd:
    """One player's position at the end of a London game: routes on the board, tickets held."""

    color: str
    name: str = ""
    routes: tuple[str, ...] = ()
    tickets: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name or self.color,
            "color": self.color,
            "routes": list(self.routes),
            "tickets": list(self.tickets),
        }


@dataclass(slots=True)
class TicketResult:
    id: str
    completed: bool
    points: int  # signed: +value when completed, -value otherwise
    path: tuple[str, ...] = ()  # own route ids joining the two locations

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "completed": self.completed,
            "points": self.points,
            "path": list(self.path),
        }


@dataclass(slots=True)
class DistrictResult:
    district: int
    completed: bool
    points: int  # the district's points when completed, else 0

    def to_json(self) -> dict[str, Any]:
        return {"district": self.district, "completed": self.completed, "points": self.points}


@dataclass(slots=True)
class PlayerScore:
    name: str
    color: str
    route_points: int
    ticket_points: int
    tickets: list[TicketResult]
    districts: list[DistrictResult]
    district_points: int
    total: int
    rank: int = 0
    routes: tuple[str, ...] = ()
    buses_used: int = 0

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
            "district_points": self.district_points,
            "districts": [d.to_json() for d in self.districts],
            "buses_used": self.buses_used,
            "total": self.total,
            "rank": self.rank,
        }


@dataclass(slots=True)
class FinalScore:
    players: list[PlayerScore]
    winners: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "map": "london",
            "players": [p.to_json() for p in self.players],
            "winners": list(self.winners),
        }

    def by_color(self, color: str) -> PlayerScore:
        for p in self.players:
            if p.color == color:
                return p
        raise KeyError(color)


# --- validation -------------------------------------------------------------------------


def validate_end_state(game_map: LondonMap, players: Sequence[PlayerEnd]) -> None:
    """Raise InvalidStateError for a London position that no legal game can reach."""
    if not players:
        raise InvalidStateError("the state has no players")
    if len(players) > game_map.max_players:
        raise InvalidStateError(
            f"Ticket to Ride: London has {game_map.min_players}-{game_map.max_players} players, "
            f"got {len(players)}"
        )
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
    ticket_holder: dict[str, str] = {}
    for p in players:
        buses = 0
        for rid in p.routes:
            if rid not in game_map.routes:
                raise InvalidStateError(f"unknown London route id {rid!r} (player {p.color})")
            if rid in route_owner:
                other = route_owner[rid]
                whom = "twice by " + p.color if other == p.color else f"by {other} and {p.color}"
                raise InvalidStateError(f"route {rid} is owned {whom}")
            route_owner[rid] = p.color
            buses += game_map.routes[rid].length
        if buses > game_map.buses_per_player:
            raise InvalidStateError(
                f"{p.color} has {buses} buses on the board; each player has only "
                f"{game_map.buses_per_player}"
            )
        for tid in p.tickets:
            if tid not in game_map.tickets:
                raise InvalidStateError(f"unknown London ticket id {tid!r} (player {p.color})")
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
        if len(players) <= game_map.doubles_closed_up_to_players:
            raise InvalidStateError(
                f"both {rid} and {twin} are claimed, but in a {len(players)}-player game only "
                "one route of a double route may be used"
            )


# --- networks ------------------------------------------------------------------------------


class Networks:
    """Connected networks of one player's own routes (union-find over locations)."""

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
        self.parent.setdefault(a, a)
        self.parent.setdefault(b, b)
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def joined(self, a: str, b: str) -> bool:
        """True when own buses join ``a`` and ``b`` (a location is joined to itself only if
        an own route touches it)."""
        if a not in self.parent or b not in self.parent:
            return False
        return self.find(a) == self.find(b)


def _path(graph: Mapping[str, list[tuple[str, Route]]], start: str, goal: str) -> tuple[str, ...]:
    """Fewest-routes path from start to goal in ``graph`` (breadth first)."""
    prev: dict[str, tuple[str, Route]] = {}
    seen = {start}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for nxt, route in graph.get(here, ()):
            if nxt in seen:
                continue
            seen.add(nxt)
            prev[nxt] = (here, route)
            if nxt == goal:
                out: list[str] = []
                while nxt != start:
                    here, route = prev[nxt]
                    out.append(route.id)
                    nxt = here
                return tuple(reversed(out))
            queue.append(nxt)
    return ()


def district_results(game_map: LondonMap, own: Sequence[Route]) -> list[DistrictResult]:
    """Every district, completed or not, for a player owning ``own``."""
    nets = Networks(own)
    out = []
    for d in game_map.districts:
        first = d.locations[0]
        done = all(nets.joined(first, loc) for loc in d.locations)
        out.append(DistrictResult(d.number, done, d.points if done else 0))
    return out


# --- the whole score ---------------------------------------------------------------------


def score_final(game_map: LondonMap, players: Sequence[PlayerEnd]) -> FinalScore:
    """Score a finished London game. Validates the position first (InvalidStateError)."""
    validate_end_state(game_map, players)
    scores: list[PlayerScore] = []
    for p in players:
        own = [game_map.routes[r] for r in p.routes]
        nets = Networks(own)
        graph: dict[str, list[tuple[str, Route]]] = defaultdict(list)
        for r in own:
            graph[r.a].append((r.b, r))
            graph[r.b].append((r.a, r))
        tickets = []
        for tid in p.tickets:
            t = game_map.tickets[tid]
            done = nets.joined(t.a, t.b)
            tickets.append(
                TicketResult(
                    id=t.id,
                    completed=done,
                    points=t.points if done else -t.points,
                    path=_path(graph, t.a, t.b) if done else (),
                )
            )
        districts = district_results(game_map, own)
        route_points = sum(game_map.points_for(r) for r in own)
        ticket_points = sum(t.points for t in tickets)
        district_points = sum(d.points for d in districts)
        scores.append(
            PlayerScore(
                name=p.name or p.color,
                color=p.color,
                route_points=route_points,
                ticket_points=ticket_points,
                tickets=tickets,
                districts=districts,
                district_points=district_points,
                total=route_points + ticket_points + district_points,
                routes=tuple(p.routes),
                buses_used=sum(r.length for r in own),
            )
        )

    def key(s: PlayerScore) -> tuple[int, int]:
        return (-s.total, -s.tickets_completed)

    ordered = sorted(scores, key=key)
    for i, s in enumerate(ordered):
        s.rank = ordered[i - 1].rank if i and key(ordered[i - 1]) == key(s) else i + 1
    return FinalScore(players=scores, winners=[s.color for s in ordered if s.rank == 1])


# --- JSON form of an end state (the `companion score` input) ------------------------------


def _str_list(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise NotationError(f"{what} must be a list of ids (strings)")
    return tuple(v.strip().lower() for v in value)


def end_state_from_json(data: Any) -> list[PlayerEnd]:
    """Parse ``{"map": "london", "players": [{"color", "name", "routes", "tickets"}]}``."""
    if not isinstance(data, Mapping):
        raise NotationError('the state must be a JSON object with "map" and "players"')
    map_id = data.get("map")
    if not isinstance(map_id, str) or map_id.strip().lower() != "london":
        raise NotationError('a London state has "map": "london"')
    raw_players = data.get("players")
    if not isinstance(raw_players, list):
        raise NotationError('"players" must be a list of player objects')
    players = []
    for i, p in enumerate(raw_players, start=1):
        if not isinstance(p, Mapping):
            raise NotationError(f"player {i} must be a JSON object")
        color = p.get("color")
        if not isinstance(color, str):
            raise NotationError(f'player {i} has no "color" (blue, red, green, yellow or black)')
        name = p.get("name", "")
        if not isinstance(name, str):
            raise NotationError(f'player {i}\'s "name" must be a string')
        who = f"player {i} ({color})"
        if p.get("stations"):
            raise NotationError(f"{who} has stations, but London has no stations")
        players.append(
            PlayerEnd(
                color=color.strip().lower(),
                name=name,
                routes=_str_list(p.get("routes"), f'{who}: "routes"'),
                tickets=_str_list(p.get("tickets"), f'{who}: "tickets"'),
            )
        )
    return players


def end_state_to_json(players: Sequence[PlayerEnd]) -> dict[str, Any]:
    return {"map": "london", "players": [p.to_json() for p in players]}
