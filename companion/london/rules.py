"""Board-level checks shared by the London simulation and the table tracker."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion.core import rules as core_rules
from companion.core.rules import (
    FinalRound,
    TurnRules,
    check_first_count,
    check_pieces,
    check_table,
)
from companion.core.rules import check_draw_keep as draw_keep

from .board import LondonMap, Route

__all__ = [
    "FinalRound",
    "check_buses",
    "check_draw_keep",
    "check_first_keep",
    "check_players",
    "check_route_free",
    "turn_rules",
]


def check_route_free(
    game_map: LondonMap,
    owners: Mapping[str, str],
    route: Route,
    player: str,
    n_players: int,
) -> None:
    """Raise unless ``player`` may put buses on ``route`` given who owns what.

    Double routes: one player never takes both; in a 2-player game, once one of the pair is
    taken the other is closed.
    """
    closed_up_to = game_map.doubles_closed_up_to_players
    core_rules.check_route_free(game_map, owners, route, player, n_players, closed_up_to)


def check_buses(route: Route, buses_left: int) -> None:
    check_pieces(route, buses_left, "buses")


def check_players(game_map: LondonMap, players: Sequence[tuple[str, str]]) -> None:
    """A table of 2-4 players, each with a distinct player colour."""
    check_table(players, game_map.min_players, game_map.max_players, "Ticket to Ride: London")


def check_first_keep(game_map: LondonMap, chosen: Sequence[str], dealt: int) -> None:
    """The first tickets: keep at least one of the two dealt (both may be kept)."""
    check_first_count(chosen, dealt, game_map.tickets_keep_min)


def check_draw_keep(game_map: LondonMap, chosen: Sequence[str], drawn: int) -> None:
    """Tickets drawn in a turn: keep at least one (a lone last ticket must be kept)."""
    draw_keep(chosen, drawn, game_map.tickets_draw_keep_min)


def turn_rules(game_map: LondonMap) -> TurnRules:
    """London's turn numbers, from the map data."""
    return TurnRules(
        face_up_wild_limit=game_map.face_up_bus_limit,
        final_round_pieces=game_map.final_round_buses,
        tickets_drawn=game_map.tickets_draw,
        tickets_draw_keep_min=game_map.tickets_draw_keep_min,
        doubles_closed_up_to=game_map.doubles_closed_up_to_players,
    )
