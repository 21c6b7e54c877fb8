"""The London table tracker: follows a real game from what the table shows.

It never sees hands or decks. It knows the claims (tapped on the map or read by a camera),
the cards tapped for them (when they are), ticket scans and turn ends, and it checks what
those allow: whose turn it is, free routes, double routes (closed in 2-player games), buses
left, exact payments (when cards were tapped) and the final round.

Payment modes as in the Europe tracker: ``strict`` (cards must be tapped and pay exactly),
``lenient`` (tapped cards are checked; a wrong payment is accepted with a warning), ``off``.
The machinery is the core's :class:`~companion.core.tracking.Tracker`; London adds its ticket
keeps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.core.errors import NotationError
from companion.core.seats import PiecesAlias
from companion.core.tracking import PAYMENT_MODES, Tracked, Tracker

from .actions import Action, ClaimRoute
from .board import LondonMap, Route
from .payment import check_route_payment
from .rules import (
    check_draw_keep,
    check_first_keep,
    check_players,
    turn_rules,
)
from .scoring import LondonResults

__all__ = ["PAYMENT_MODES", "TableTracker", "TrackedPlayer"]


@dataclass
class TrackedPlayer(Tracked):
    pieces: int = 17
    buses = PiecesAlias()
    PIECES: ClassVar[str] = "buses"


class TableTracker(LondonResults, Tracker[TrackedPlayer, Route]):
    """Follows a real London table. ``apply`` raises IllegalActionError and changes nothing
    if the action is refused."""

    map: LondonMap

    HANDLERS: ClassVar[Mapping[type[Action], str]] = {**Tracker.HANDLERS, ClaimRoute: "_claim"}
    TICKET_ID: ClassVar[str] = "London ticket id"

    def __init__(
        self,
        game_map: LondonMap,
        players: Sequence[tuple[str, str]],
        *,
        payment_mode: str = "lenient",
        tickets_tracked: bool = False,
        turn_needs_action: bool = False,
    ) -> None:
        check_players(game_map, players)
        super().__init__(
            game_map,
            turn_rules(game_map),
            [
                TrackedPlayer(color=c, name=n or c, pieces=game_map.buses_per_player)
                for n, c in players
            ],
            payment_mode,
            tickets_tracked=tickets_tracked,
            turn_needs_action=turn_needs_action,
        )

    # --- applying ---------------------------------------------------------------------
    def _claim(self, p: TrackedPlayer, action: ClaimRoute) -> None:
        route = self._route(action.route)
        self._check_route_claim(p, route, action.cards, check_route_payment)
        self._place_route(p, route.id, route.length, self.map.points_for(route))

    def _setup_dealt(self) -> int:
        return self.map.tickets_dealt

    def _setup_count(self, tickets: Sequence[str]) -> None:
        check_first_keep(self.map, tickets, self.map.tickets_dealt)

    def _draw_count(self) -> int:
        # the tickets not yet kept by anyone (the counts are public)
        left = len(self.map.tickets) - sum(len(q.tickets) for q in self.players)
        return min(self.map.tickets_draw, left)

    def _draw_keep_count(self, tickets: Sequence[str], drawn: int) -> None:
        check_draw_keep(self.map, tickets, drawn)

    # --- results and forms ------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "tracker",
            "map": self.map.id,
            **self._turn_json(),
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], game_map: LondonMap) -> TableTracker:
        try:
            if data["map"] != game_map.id:
                raise ValueError(f"a {data['map']} state, not {game_map.id}")
            players = [TrackedPlayer.from_json(p) for p in data["players"]]
            t = cls(
                game_map,
                [(p.name, p.color) for p in players],
                payment_mode=data["payment_mode"],
                tickets_tracked=bool(data.get("tickets_tracked", False)),
                turn_needs_action=bool(data.get("turn_needs_action", False)),
            )
            t._load_turn(data, players)
            t.warnings = list(data["warnings"])
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"not a London tracker state: {exc}") from exc
        return t
