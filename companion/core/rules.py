"""Board-level checks shared by the simulation and the table tracker."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from .board import GameMap, MapLookups, Route, Variant
from .cards import PLAYER_COLORS
from .errors import IllegalActionError, InvalidStateError, NotationError
from .networks import BoardRoute

DOUBLES_CLOSED_UP_TO = 3  # Europe: with 2-3 players only one route of a double is used


def route_open(
    owners: Mapping[str, str],
    route_id: str,
    twin_id: str | None,
    player: str,
    n_players: int,
    closed_up_to: int,
) -> bool:
    """What :func:`check_route_owners` checks, as a yes/no (for searching many routes)."""
    if route_id in owners:
        return False
    if twin_id is not None:
        twin_owner = owners.get(twin_id)
        if twin_owner is not None and (twin_owner == player or n_players <= closed_up_to):
            return False
    return True


def check_route_owners(
    owners: Mapping[str, str],
    route: BoardRoute,
    twin: BoardRoute | None,
    player: str,
    n_players: int,
    closed_up_to: int,
    closed: str,
) -> None:
    """Raise unless ``player`` may take ``route`` (whose double is ``twin``) given who owns what.

    One player never takes both routes of a double; with ``closed_up_to`` players or fewer only
    one of the pair is used (``closed`` says so, with ``{twin}`` and ``{n}`` filled in).
    """
    owner = owners.get(route.id)
    if owner is not None:
        who = "you" if owner == player else owner
        raise IllegalActionError(f"{route.id} is already claimed by {who}", rule="route-taken")
    if twin is not None:
        twin_owner = owners.get(twin.id)
        if twin_owner == player:
            raise IllegalActionError(
                f"{player} already owns {twin.id}: one player may not claim both routes of a "
                "double route",
                rule="double-both",
            )
        if twin_owner is not None and n_players <= closed_up_to:
            raise IllegalActionError(closed.format(twin=twin.id, n=n_players), rule="double-closed")


def check_pieces(route: BoardRoute, left: int, pieces: str) -> None:
    """Enough trains (``pieces`` "trains") or buses left for ``route``."""
    if left < route.length:
        raise IllegalActionError(
            f"{route.id} needs {route.length} {pieces} and only {left} are left",
            rule=f"not-enough-{pieces}",
            params={"route": route.id, "need": route.length, "left": left},
        )


def check_table(players: Sequence[tuple[str, str]], low: int, high: int, game: str) -> None:
    """A table of ``low``-``high`` players, each with a distinct player colour."""
    if not low <= len(players) <= high:
        raise InvalidStateError(f"{game} is for {low}-{high} players, got {len(players)}")
    colors = [c for _, c in players]
    for c in colors:
        if c not in PLAYER_COLORS:
            raise InvalidStateError(
                f"unknown player colour {c!r}: expected one of {', '.join(PLAYER_COLORS)}"
            )
    if len(set(colors)) != len(colors):
        raise InvalidStateError("two players chose the same colour")


def check_route_free(
    game_map: MapLookups[Any, Any],
    owners: Mapping[str, str],
    route: BoardRoute,
    player: str,
    n_players: int,
    closed_up_to: int = DOUBLES_CLOSED_UP_TO,
) -> None:
    """Raise unless ``player`` may put pieces on ``route`` of any board given who owns what.

    Double routes: one player never takes both; with ``closed_up_to`` players or fewer (Europe:
    2-3) only one of the pair is used (the map's DOUBLES_CLOSED says so).
    """
    twin = game_map.twin_of(route)
    closed = game_map.DOUBLES_CLOSED
    check_route_owners(owners, route, twin, player, n_players, closed_up_to, closed)


def check_trains(route: Route, trains_left: int) -> None:
    check_pieces(route, trains_left, "trains")


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


def check_players(players: Sequence[tuple[str, str]]) -> None:
    """A table of 2-5 players, each with a distinct player colour."""
    check_table(players, 2, 5, "Ticket to Ride: Europe")


def check_first_count(chosen: Sequence[str], dealt: int, keep_min: int) -> None:
    """The first tickets kept at a table: at least ``keep_min`` of the ``dealt``, at most all."""
    need = min(keep_min, dealt)
    if len(chosen) < need:
        raise IllegalActionError(
            f"keep at least {need} of the first tickets, not {len(chosen)}",
            rule="keep-minimum",
            params={"need": need},
        )
    if len(chosen) > dealt:
        raise IllegalActionError(
            f"only {dealt} tickets are dealt at the start",
            rule="keep-maximum",
            params={"most": dealt},
        )


def check_first_keep(
    game_map: GameMap, variant: Variant, chosen: Sequence[str], dealt: int
) -> None:
    """The first tickets kept: at least keep_min (of ``dealt``), long ones capped."""
    s = variant.setup
    if len(chosen) < min(s.keep_min, dealt):
        raise IllegalActionError(
            f"keep at least {s.keep_min} of the first tickets, not {len(chosen)}",
            rule="keep-minimum",
            params={"need": min(s.keep_min, dealt)},
        )
    longs = sum(1 for t in chosen if game_map.tickets[t].long)
    if s.long_keep_max is not None and longs > s.long_keep_max:
        raise IllegalActionError(
            f"keep at most {s.long_keep_max} long ticket{'s' if s.long_keep_max != 1 else ''}",
            rule="keep-long-maximum",
            params={"most": s.long_keep_max},
        )


def check_draw_keep(chosen: Sequence[str], drawn: int, keep_min: int) -> None:
    """Tickets drawn in a turn: keep at least ``keep_min`` (a lone last ticket must be kept)."""
    need = min(keep_min, drawn)
    if len(chosen) < need:
        raise IllegalActionError(
            f"keep at least {need} of the drawn tickets", rule="keep-minimum", params={"need": need}
        )
    if len(chosen) > drawn:
        raise IllegalActionError(
            f"only {drawn} ticket{'s were' if drawn != 1 else ' was'} drawn",
            rule="keep-maximum",
            params={"most": drawn},
        )


R = TypeVar("R")
K = TypeVar("K")  # a card of any board


def lookup_route(route: Callable[[str], R], route_id: str) -> R:
    """``route(route_id)`` (a map's look-up), an unknown id refused as an illegal action."""
    try:
        return route(route_id)
    except NotationError as exc:
        raise IllegalActionError(str(exc), rule="unknown-route") from None


def row_is_legal(row: Iterable[object], wild: object, limit: int) -> bool:
    """A face-up row (empty slots as None) with fewer than ``limit`` wild cards."""
    return sum(1 for c in row if c == wild) < limit


def legal_row_exists(pool: Mapping[K, int], wild: K, slots: int, limit: int) -> bool:
    """Whether some row of ``slots`` cards dealt from ``pool`` (the cards left: draw pile,
    discards and the row itself) is legal: a row takes every card when fewer are left, and
    otherwise holds the fewest wild cards when every other card is in it."""
    total = sum(pool.values())
    plain = total - pool.get(wild, 0)
    return max(0, min(slots, total) - plain) < limit


@dataclass(frozen=True, slots=True)
class TurnRules:
    """The numbers of a board's turn rules, whatever its map calls them."""

    face_up_wild_limit: int  # this many wild cards face up: the row is redealt
    final_round_pieces: int  # a turn ended with this many trains/buses or fewer: final round
    tickets_drawn: int  # tickets drawn in a turn
    tickets_draw_keep_min: int  # of which at least this many are kept
    doubles_closed_up_to: int  # with this many players or fewer, one route of a double only


@dataclass
class FinalRound:
    """The end of the game: once a player ends a turn with few trains left, everyone (that
    player included) plays one more turn."""

    trigger: int | None = None  # the player who started the final round
    turns_left: int | None = None

    @property
    def started(self) -> bool:
        return self.trigger is not None

    def turn_ended(self, current: int, trains_left: int, threshold: int, n_players: int) -> bool:
        """Record the end of ``current``'s turn; True when that was the game's last turn."""
        if self.trigger is None:
            if trains_left <= threshold:
                self.trigger = current
                self.turns_left = n_players
            return False
        assert self.turns_left is not None
        self.turns_left -= 1
        return self.turns_left <= 0
