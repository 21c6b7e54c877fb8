"""Board-level checks shared by the simulation and the table tracker."""

from __future__ import annotations

from collections.abc import Mapping

from .board import GameMap, Route
from .errors import IllegalActionError


def check_route_free(
    game_map: GameMap,
    owners: Mapping[str, str],
    route: Route,
    player: str,
    n_players: int,
) -> None:
    """Raise unless ``player`` may put trains on ``route`` given who owns what.

    Double routes: one player never takes both; with 2-3 players only one of the pair is used.
    """
    owner = owners.get(route.id)
    if owner is not None:
        who = "you" if owner == player else owner
        raise IllegalActionError(f"{route.id} is already claimed by {who}", rule="route-taken")
    twin = game_map.twin_of(route)
    if twin is not None:
        twin_owner = owners.get(twin.id)
        if twin_owner == player:
            raise IllegalActionError(
                f"{player} already owns {twin.id}: one player may not claim both routes of a "
                "double route",
                rule="double-both",
            )
        if twin_owner is not None and n_players <= 3:
            raise IllegalActionError(
                f"{twin.id} is taken and with {n_players} players only one route of a double "
                "route may be used",
                rule="double-closed",
            )


def check_trains(route: Route, trains_left: int) -> None:
    if trains_left < route.length:
        raise IllegalActionError(
            f"{route.id} needs {route.length} trains and only {trains_left} are left",
            rule="not-enough-trains",
        )


def check_station_free(
    game_map: GameMap, station_owners: Mapping[str, str], city: str, built: int
) -> None:
    owner = station_owners.get(city)
    if owner is not None:
        raise IllegalActionError(
            f"{city} already has a station ({owner}); a city holds one station at most",
            rule="station-taken",
        )
    if built >= game_map.stations_per_player:
        raise IllegalActionError(
            f"all {game_map.stations_per_player} stations are already built", rule="no-stations"
        )
