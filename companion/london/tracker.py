"""The London table tracker: follows a real game from what the table shows.

It never sees hands or decks. It knows the claims (tapped on the map or read by a camera),
the cards tapped for them (when they are), ticket scans and turn ends, and it checks what
those allow: whose turn it is, free routes, double routes (closed in 2-player games), buses
left, exact payments (when cards were tapped) and the final round.

Payment modes as in the Europe tracker: ``strict`` (cards must be tapped and pay exactly),
``lenient`` (tapped cards are checked; a wrong payment is accepted with a warning), ``off``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError

from .actions import Action, ClaimRoute, DrewCards, EndTurn, KeepTickets
from .board import LondonMap, Route
from .cards import Card
from .payment import check_route_payment
from .rules import (
    FinalRound,
    check_buses,
    check_draw_keep,
    check_first_keep,
    check_players,
    check_route_free,
)
from .scoring import FinalScore, PlayerEnd, score_final

PAYMENT_MODES = ("strict", "lenient", "off")


@dataclass
class TrackedPlayer:
    color: str
    name: str
    routes: list[str] = field(default_factory=list)
    tickets: list[str] = field(default_factory=list)
    buses: int = 17
    score: int = 0
    ready: bool = False  # first tickets chosen

    def to_json(self) -> dict[str, Any]:
        return {
            "color": self.color,
            "name": self.name,
            "routes": list(self.routes),
            "tickets": list(self.tickets),
            "buses": self.buses,
            "score": self.score,
            "ready": self.ready,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TrackedPlayer:
        return cls(
            color=d["color"],
            name=d["name"],
            routes=list(d["routes"]),
            tickets=list(d["tickets"]),
            buses=int(d["buses"]),
            score=int(d["score"]),
            ready=bool(d["ready"]),
        )


class TableTracker:
    """Follows a real London table. ``apply`` raises IllegalActionError and changes nothing
    if the action is refused."""

    def __init__(
        self,
        game_map: LondonMap,
        players: Sequence[tuple[str, str]],
        *,
        payment_mode: str = "lenient",
    ) -> None:
        check_players(game_map, players)
        if payment_mode not in PAYMENT_MODES:
            raise InvalidStateError(
                f"payment mode must be one of {', '.join(PAYMENT_MODES)}, not {payment_mode!r}"
            )
        self.map = game_map
        self.payment_mode = payment_mode
        self.players = [
            TrackedPlayer(color=c, name=n or c, buses=game_map.buses_per_player) for n, c in players
        ]
        self.route_owner: dict[str, str] = {}
        self.phase = "setup"  # setup -> playing -> over
        self.current = 0
        self.acted = False
        self.final = FinalRound()
        self.turn = 0
        self.warnings: list[str] = []

    # --- queries ----------------------------------------------------------------------
    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def current_player(self) -> TrackedPlayer:
        return self.players[self.current]

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def final_round(self) -> bool:
        return self.final.started

    def player(self, color: str) -> TrackedPlayer:
        for p in self.players:
            if p.color == color:
                return p
        raise IllegalActionError(f"no player plays {color} in this game", rule="unknown-player")

    def ticket_holder(self, ticket: str) -> str | None:
        for p in self.players:
            if ticket in p.tickets:
                return p.color
        return None

    # --- applying ---------------------------------------------------------------------
    def apply(self, action: Action) -> list[str]:
        """Apply an action; returns the warnings it raised (lenient payments)."""
        before = len(self.warnings)
        trial = self.copy()
        trial._apply(action)
        self.__dict__.update(trial.__dict__)
        return self.warnings[before:]

    def _apply(self, action: Action) -> None:
        if self.over:
            raise IllegalActionError("the game is over", rule="game-over")
        actor = self.player(action.player)
        if isinstance(action, KeepTickets) and self.phase == "setup" and not actor.ready:
            self._keep_initial(actor, action)
            return
        if self.phase == "setup":
            self.phase = "playing"
        self._turn_check(actor, action)
        if isinstance(action, EndTurn):
            self._end_turn()
            return
        if self.acted:
            raise IllegalActionError(
                f"{actor.color} already took this turn's action; end the turn first",
                rule="one-action-per-turn",
            )
        if isinstance(action, ClaimRoute):
            self._claim(actor, action)
        elif isinstance(action, KeepTickets):
            self._keep_tickets(actor, action)
        elif isinstance(action, DrewCards):
            self.acted = True
        else:
            raise IllegalActionError(
                f"{action.TYPE} is a simulation action; the table tracker does not see it",
                rule="not-tracked",
            )

    def _turn_check(self, actor: TrackedPlayer, action: Action) -> None:
        if actor is self.current_player:
            return
        nxt = self.players[(self.current + 1) % self.n_players]
        if actor is nxt and not isinstance(action, EndTurn):
            # The table moved on without pressing "end turn": end it for them.
            self._end_turn()
            if self.over:
                raise IllegalActionError("the game is over", rule="game-over")
            return
        raise IllegalActionError(
            f"it is {self.current_player.color}'s turn, not {actor.color}'s", rule="not-your-turn"
        )

    def _check_cards(
        self, check: Callable[[Sequence[Card]], object], cards: Sequence[Card] | None, what: str
    ) -> None:
        if self.payment_mode == "off":
            return
        if cards is None:
            if self.payment_mode == "strict":
                raise IllegalActionError(
                    f"tap the cards that pay for {what} (payments are checked strictly)",
                    rule="no-cards-given",
                )
            return
        try:
            check(cards)
        except IllegalActionError as exc:
            if self.payment_mode == "strict":
                raise
            self.warnings.append(str(exc))

    def _route(self, route_id: str) -> Route:
        try:
            return self.map.route(route_id)
        except NotationError as exc:
            raise IllegalActionError(str(exc), rule="unknown-route") from None

    def _claim(self, p: TrackedPlayer, action: ClaimRoute) -> None:
        route = self._route(action.route)
        check_route_free(self.map, self.route_owner, route, p.color, self.n_players)
        check_buses(route, p.buses)
        self._check_cards(lambda c: check_route_payment(route, c), action.cards, route.id)
        self.route_owner[route.id] = p.color
        p.routes.append(route.id)
        p.buses -= route.length
        p.score += self.map.points_for(route)
        self.acted = True

    def _check_tickets(self, tickets: Sequence[str]) -> None:
        if len(set(tickets)) != len(tickets):
            raise IllegalActionError("a ticket is named twice", rule="ticket-twice")
        for t in tickets:
            if t not in self.map.tickets:
                raise IllegalActionError(f"unknown London ticket id {t!r}", rule="unknown-ticket")
            holder = self.ticket_holder(t)
            if holder is not None:
                raise IllegalActionError(f"{t} is already held by {holder}", rule="ticket-held")

    def _keep_initial(self, p: TrackedPlayer, action: KeepTickets) -> None:
        self._check_tickets(action.tickets)
        check_first_keep(self.map, action.tickets, self.map.tickets_dealt)
        p.tickets.extend(action.tickets)
        p.ready = True
        if all(q.ready for q in self.players):
            self.phase = "playing"

    def _keep_tickets(self, p: TrackedPlayer, action: KeepTickets) -> None:
        self._check_tickets(action.tickets)
        left = len(self.map.tickets) - sum(len(q.tickets) for q in self.players)
        check_draw_keep(self.map, action.tickets, min(self.map.tickets_draw, left))
        p.tickets.extend(action.tickets)
        self.acted = True

    def _end_turn(self) -> None:
        if self.final.turn_ended(
            self.current, self.current_player.buses, self.map.final_round_buses, self.n_players
        ):
            self.phase = "over"
        self.acted = False
        self.turn += 1
        if not self.over:
            self.current = (self.current + 1) % self.n_players

    # --- results and forms ------------------------------------------------------------
    def end_positions(self) -> list[PlayerEnd]:
        return [PlayerEnd(p.color, p.name, tuple(p.routes), tuple(p.tickets)) for p in self.players]

    def final_score(self) -> FinalScore:
        return score_final(self.map, self.end_positions())

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "tracker",
            "map": self.map.id,
            "payment_mode": self.payment_mode,
            "phase": self.phase,
            "current": self.current,
            "acted": self.acted,
            "turn": self.turn,
            "final_trigger": self.final.trigger,
            "turns_left": self.final.turns_left,
            "players": [p.to_json() for p in self.players],
            "route_owner": dict(self.route_owner),
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
            )
            t.players = players
            t.phase = data["phase"]
            t.current = int(data["current"])
            t.acted = bool(data["acted"])
            t.turn = int(data["turn"])
            t.final = FinalRound(data["final_trigger"], data["turns_left"])
            t.route_owner = dict(data["route_owner"])
            t.warnings = list(data["warnings"])
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"not a London tracker state: {exc}") from exc
        return t

    def copy(self) -> TableTracker:
        return copy.deepcopy(self, {id(self.map): self.map})
