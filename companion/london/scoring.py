"""Final scoring of a finished London game.

Each player scores the route table for every own route, +/- every ticket held (completed when
the two locations are joined by a continuous line of the player's own buses), and the points
of every district whose locations the player's own buses all join into one network (the
routes between them need not all be taken). Ties go to the most completed tickets, then stay
shared. No longest route, no stations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.errors import NotationError
from companion.core.networks import Networks, route_graph
from companion.core.notation import id_list, player_entries, state_object
from companion.core.scoring import (
    Results,
    ScoreSheet,
    SeatEnd,
    Standings,
    TicketResult,
    check_end_doubles,
    check_end_players,
    check_end_routes,
    check_end_tickets,
    rank_players,
    ticket_result,
)

from .board import LondonMap, Route

__all__ = [
    "DistrictResult",
    "FinalScore",
    "Networks",
    "PlayerEnd",
    "PlayerScore",
    "TicketResult",
    "district_results",
    "end_state_from_json",
    "end_state_to_json",
    "score_final",
    "validate_end_state",
]


@dataclass(frozen=True, slots=True)
class PlayerEnd(SeatEnd):
    """One player's position at the end of a London game: routes on the board, tickets held."""

    tickets: tuple[str, ...] = ()


@dataclass(slots=True)
class DistrictResult:
    district: int
    completed: bool
    points: int  # the district's points when completed, else 0

    def to_json(self) -> dict[str, Any]:
        return {"district": self.district, "completed": self.completed, "points": self.points}


@dataclass(slots=True, kw_only=True)
class PlayerScore(ScoreSheet):
    districts: list[DistrictResult]
    district_points: int
    buses_used: int = 0

    def _items_json(self) -> dict[str, Any]:
        return {
            "district_points": self.district_points,
            "districts": [d.to_json() for d in self.districts],
            "buses_used": self.buses_used,
        }


@dataclass(slots=True)
class FinalScore(Standings[PlayerScore]):
    """The final score of a London game (its JSON form names the map)."""

    def to_json(self) -> dict[str, Any]:
        return {"map": "london", **Standings.to_json(self)}


# --- validation -------------------------------------------------------------------------


def validate_end_state(game_map: LondonMap, players: Sequence[PlayerEnd]) -> None:
    """Raise InvalidStateError for a London position that no legal game can reach."""
    check_end_players(players, game_map.min_players, game_map.max_players, "Ticket to Ride: London")
    route_owner: dict[str, str] = {}
    ticket_holder: dict[str, str] = {}
    pieces = ("buses", game_map.buses_per_player)
    for p in players:
        check_end_routes(p.color, p.routes, game_map.routes, route_owner, pieces, "London ")
        check_end_tickets(p.color, p.tickets, game_map.tickets, ticket_holder, "London ")
    check_end_doubles(
        route_owner,
        game_map.routes,
        len(players),
        game_map.doubles_closed_up_to_players,
        "both {a} and {b} are claimed, but in a {n}-player game only one route of a double "
        "route may be used",
    )


# --- networks ------------------------------------------------------------------------------


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
        graph = route_graph(own)
        tickets = []
        for tid in p.tickets:
            t = game_map.tickets[tid]
            tickets.append(ticket_result(t.id, t.points, nets.joined(t.a, t.b), graph, t.a, t.b))
        districts = district_results(game_map, own)
        route_points = sum(game_map.points_for(r) for r in own)
        ticket_points = sum(t.points for t in tickets)
        district_points = sum(d.points for d in districts)
        scores.append(
            PlayerScore.of(
                p,
                route_points,
                tickets,
                districts=districts,
                district_points=district_points,
                total=route_points + ticket_points + district_points,
                buses_used=sum(r.length for r in own),
            )
        )

    def key(s: PlayerScore) -> tuple[int, int]:
        return (-s.total, -s.tickets_completed)

    return FinalScore(players=scores, winners=rank_players(scores, key))


class LondonResults(Results[PlayerEnd, FinalScore]):
    """A London game's or table's results."""

    _end = staticmethod(PlayerEnd.of)
    _score = staticmethod(score_final)


# --- JSON form of an end state (the `companion score` input) ------------------------------


def end_state_from_json(data: Any) -> list[PlayerEnd]:
    """Parse ``{"map": "london", "players": [{"color", "name", "routes", "tickets"}]}``."""
    state = state_object(data)
    map_id = state.get("map")
    if not isinstance(map_id, str) or map_id.strip().lower() != "london":
        raise NotationError('a London state has "map": "london"')
    players = []
    for color, name, who, p in player_entries(state):
        if p.get("stations"):
            raise NotationError(f"{who} has stations, but London has no stations")
        players.append(
            PlayerEnd(
                color=color,
                name=name,
                routes=id_list(p.get("routes"), f'{who}: "routes"'),
                tickets=id_list(p.get("tickets"), f'{who}: "tickets"'),
            )
        )
    return players


def end_state_to_json(players: Sequence[PlayerEnd]) -> dict[str, Any]:
    return {"map": "london", "players": [p.to_json() for p in players]}
