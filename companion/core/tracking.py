"""The machinery every board's table tracker shares.

A tracker never sees hands or decks: it follows claims, card taps, ticket scans and turn ends.
:class:`Tracked` is a player as the table shows it; :class:`Tracker` holds whose turn it is,
the routes taken, the payment mode (``strict``: cards must be tapped and pay exactly;
``lenient``: tapped cards are checked and a wrong payment is accepted with a warning; ``off``),
the ticket checks, the final round, all-or-nothing ``apply`` and the JSON form. Europe
(:mod:`companion.core.tracker`) adds tunnels, stations and variants; London its ticket keeps.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Self, TypeVar

from .actions import Action, DrewCards, EndTurn, KeepTickets
from .board import MapLookups
from .cards import TrainCard
from .errors import IllegalActionError, InvalidStateError
from .networks import Link
from .rules import FinalRound, TurnRules, lookup_route
from .seats import Seat, TurnOrder

PAYMENT_MODES = ("strict", "lenient", "off")

C = TypeVar("C", bound=TrainCard)
R = TypeVar("R", bound=Link)


@dataclass
class Tracked(Seat):
    """A player as the table shows it; each board names its pieces and adds its own fields."""

    def to_json(self) -> dict[str, Any]:
        return {
            "color": self.color,
            "name": self.name,
            "routes": list(self.routes),
            **self._extra_json(),
            "tickets": list(self.tickets),
            self.PIECES: self.pieces,
            "score": self.score,
            "ready": self.ready,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Self:
        return cls(
            color=d["color"],
            name=d["name"],
            routes=list(d["routes"]),
            **cls._extra_from_json(d),
            tickets=list(d["tickets"]),
            pieces=int(d[cls.PIECES]),
            score=int(d["score"]),
            ready=bool(d["ready"]),
        )


T = TypeVar("T", bound=Tracked)


class Tracker(TurnOrder[T], Generic[T, R]):
    """Follows a real table. ``apply`` raises IllegalActionError and changes nothing if refused."""

    map: MapLookups[R, Any]  # each board's class names its map type

    # action type -> the name of the method that handles it (actor, action)
    HANDLERS: ClassVar[Mapping[type[Action], str]] = {
        KeepTickets: "_keep_tickets",
        DrewCards: "_drew",
    }
    TICKET_ID: ClassVar[str] = "ticket id"  # "unknown <TICKET_ID> 'x'"

    def __init__(
        self, game_map: MapLookups[R, Any], rules: TurnRules, players: list[T], payment_mode: str
    ) -> None:
        if payment_mode not in PAYMENT_MODES:
            raise InvalidStateError(
                f"payment mode must be one of {', '.join(PAYMENT_MODES)}, not {payment_mode!r}"
            )
        super().__init__(players, rules)
        self.map = game_map
        self.payment_mode = payment_mode
        self.route_owner: dict[str, str] = {}
        self.phase = "setup"  # setup -> playing -> over
        self.acted = False
        self.warnings: list[str] = []

    def _shared(self) -> tuple[object, ...]:
        """Immutable objects a copy shares (the map; Europe's variant too)."""
        return (self.map,)

    # --- queries ----------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase == "over"

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
        self._check_pending(action)
        if isinstance(action, EndTurn):
            self._end_turn()
            return
        if self._settle(actor, action):
            return
        if self.acted:
            raise IllegalActionError(
                f"{actor.color} already took this turn's action; end the turn first",
                rule="one-action-per-turn",
            )
        name = self.HANDLERS.get(type(action))
        if name is None:
            raise IllegalActionError(
                f"{action.TYPE} is a simulation action; the table tracker does not see it",
                rule="not-tracked",
            )
        handler: Callable[[T, Any], None] = getattr(self, name)
        handler(actor, action)

    def _check_pending(self, action: Action) -> None:
        """Refuse ``action`` while something else must be settled first (a tunnel)."""

    def _settle(self, actor: T, action: Action) -> bool:
        """Handle a step of something the turn's action started (a tunnel); True if it was."""
        return False

    def _may_end_for_them(self) -> bool:
        """May the turn end because the next player acts (not in the middle of a tunnel)?"""
        return True

    def _turn_check(self, actor: T, action: Action) -> None:
        if actor is self.current_player:
            return
        nxt = self.players[(self.current + 1) % self.n_players]
        if actor is nxt and self._may_end_for_them() and not isinstance(action, EndTurn):
            # The table moved on without pressing "end turn": end it for them.
            self._end_turn()
            if self.over:
                raise IllegalActionError("the game is over", rule="game-over")
            return
        raise IllegalActionError(
            f"it is {self.current_player.color}'s turn, not {actor.color}'s", rule="not-your-turn"
        )

    def _check_cards(
        self, check: Callable[[Sequence[C]], object], cards: Sequence[C] | None, what: str
    ) -> None:
        """Check tapped ``cards`` as the payment mode says (strict, lenient or off)."""
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

    def _route(self, route_id: str) -> R:
        return lookup_route(self.map.route, route_id)

    def _place_route(self, p: T, route_id: str, length: int, points: int) -> None:
        self.route_owner[route_id] = p.color
        p.routes.append(route_id)
        p.pieces -= length
        p.score += points
        self.acted = True

    def _drew(self, p: T, action: DrewCards) -> None:
        self.acted = True

    def _check_tickets(self, tickets: Sequence[str]) -> None:
        if len(set(tickets)) != len(tickets):
            raise IllegalActionError("a ticket is named twice", rule="ticket-twice")
        for t in tickets:
            if t not in self.map.tickets:
                raise IllegalActionError(f"unknown {self.TICKET_ID} {t!r}", rule="unknown-ticket")
            self._check_ticket(t)
            holder = self.ticket_holder(t)
            if holder is not None:
                raise IllegalActionError(f"{t} is already held by {holder}", rule="ticket-held")

    def _check_ticket(self, ticket: str) -> None:
        """The board's own check of a known ticket (Europe: of the variant played)."""

    def _keep_initial(self, p: T, action: KeepTickets) -> None:
        raise NotImplementedError

    def _kept_first(self, p: T, tickets: Sequence[str]) -> None:
        p.tickets.extend(tickets)
        p.ready = True
        if all(q.ready for q in self.players):
            self.phase = "playing"

    def _keep_tickets(self, p: T, action: KeepTickets) -> None:
        raise NotImplementedError

    def _end_turn(self) -> None:
        if self._next_turn():
            self.phase = "over"
        self.acted = False

    # --- forms ------------------------------------------------------------------------
    def _turn_json(self) -> dict[str, Any]:
        return {
            "payment_mode": self.payment_mode,
            "phase": self.phase,
            "current": self.current,
            "acted": self.acted,
            "turn": self.turn,
            "final_trigger": self.final.trigger,
            "turns_left": self.final.turns_left,
            "players": [p.to_json() for p in self.players],
            "route_owner": dict(self.route_owner),
        }

    def _load_turn(self, data: Mapping[str, Any], players: list[T]) -> None:
        """The inverse of :meth:`_turn_json` (``payment_mode`` goes to the constructor)."""
        self.players = players
        self.phase = data["phase"]
        self.current = int(data["current"])
        self.acted = bool(data["acted"])
        self.turn = int(data["turn"])
        self.final = FinalRound(data["final_trigger"], data["turns_left"])
        self.route_owner = dict(data["route_owner"])

    def copy(self) -> Self:
        return copy.deepcopy(self, {id(x): x for x in (self.rules, *self._shared())})
