"""The table tracker: follows a real game from what the table shows.

It never sees hands or decks. It knows the claims (from the camera or a tap on the map), the
stations, the cards tapped on the reader (when they are), ticket scans and turn ends, and it
checks everything those allow: whose turn it is, free routes, double routes, trains and
stations left, exact payments (when cards were tapped), tunnel surcharges and the final round.

Payment modes: ``strict`` (cards must be tapped and be an exact legal payment), ``lenient``
(tapped cards are checked; a wrong payment is accepted with a warning), ``off`` (not checked).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import (
    Action,
    BuildStation,
    ClaimRoute,
    DrewCards,
    EndTurn,
    KeepTickets,
    PayTunnel,
    RevealTunnel,
    WithdrawTunnel,
)
from .board import GameMap, Route, Variant
from .cards import Card
from .errors import IllegalActionError, InvalidStateError, NotationError
from .payment import (
    Surcharge,
    check_route_payment,
    check_station_payment,
    check_surcharge_payment,
    station_cost,
    tunnel_surcharge,
)
from .rules import (
    FinalRound,
    check_first_keep,
    check_players,
    check_route_free,
    check_station_free,
    check_trains,
)
from .scoring import FinalScore, PlayerEnd, score_final

PAYMENT_MODES = ("strict", "lenient", "off")


@dataclass
class TrackedPlayer:
    color: str
    name: str
    routes: list[str] = field(default_factory=list)
    stations: list[str] = field(default_factory=list)
    tickets: list[str] = field(default_factory=list)
    trains: int = 45
    score: int = 0
    ready: bool = False  # first tickets chosen

    def to_json(self) -> dict[str, Any]:
        return {
            "color": self.color,
            "name": self.name,
            "routes": list(self.routes),
            "stations": list(self.stations),
            "tickets": list(self.tickets),
            "trains": self.trains,
            "score": self.score,
            "ready": self.ready,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TrackedPlayer:
        return cls(
            color=d["color"],
            name=d["name"],
            routes=list(d["routes"]),
            stations=list(d["stations"]),
            tickets=list(d["tickets"]),
            trains=int(d["trains"]),
            score=int(d["score"]),
            ready=bool(d["ready"]),
        )


@dataclass
class TrackedTunnel:
    route: str
    played: tuple[Card, ...] | None
    revealed: tuple[Card, ...] | None = None

    @property
    def surcharge(self) -> Surcharge | None:
        if self.played is None or self.revealed is None:
            return None
        return tunnel_surcharge(self.played, self.revealed)

    def to_json(self) -> dict[str, Any]:
        s = self.surcharge
        return {
            "route": self.route,
            "played": None if self.played is None else [c.value for c in self.played],
            "revealed": None if self.revealed is None else [c.value for c in self.revealed],
            "extra": None if s is None else s.extra,
            "extra_color": None if s is None else s.color.value,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TrackedTunnel:
        def cards(v: Any) -> tuple[Card, ...] | None:
            return None if v is None else tuple(Card(c) for c in v)

        return cls(route=d["route"], played=cards(d["played"]), revealed=cards(d["revealed"]))


class TableTracker:
    """Follows a real table. ``apply`` raises IllegalActionError and changes nothing if refused."""

    def __init__(
        self,
        game_map: GameMap,
        players: Sequence[tuple[str, str]],
        *,
        variant: str = "europe",
        payment_mode: str = "lenient",
    ) -> None:
        check_players(players)
        if payment_mode not in PAYMENT_MODES:
            raise InvalidStateError(
                f"payment mode must be one of {', '.join(PAYMENT_MODES)}, not {payment_mode!r}"
            )
        self.map = game_map
        self.variant: Variant = game_map.variant(variant)
        self.payment_mode = payment_mode
        self.players = [
            TrackedPlayer(color=c, name=n or c, trains=game_map.trains_per_player)
            for n, c in players
        ]
        self.route_owner: dict[str, str] = {}
        self.station_owner: dict[str, str] = {}
        self.phase = "setup"  # setup -> playing -> over
        self.current = 0
        self.acted = False
        self.tunnel: TrackedTunnel | None = None
        self.final = FinalRound()
        self.turn = 0
        self.warnings: list[str] = []
        self._variant_tickets = {
            t.id for group in game_map.tickets_of_variant(self.variant) for t in group
        }

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
        if self.tunnel is not None and not isinstance(
            action, RevealTunnel | PayTunnel | WithdrawTunnel
        ):
            raise IllegalActionError(
                f"first settle the tunnel {self.tunnel.route}: reveal the cards, pay or withdraw",
                rule="tunnel-pending",
            )
        if isinstance(action, EndTurn):
            self._end_turn()
            return
        if isinstance(action, RevealTunnel | PayTunnel | WithdrawTunnel):
            self._tunnel_step(actor, action)
            return
        if self.acted:
            raise IllegalActionError(
                f"{actor.color} already took this turn's action; end the turn first",
                rule="one-action-per-turn",
            )
        if isinstance(action, ClaimRoute):
            self._claim(actor, action)
        elif isinstance(action, BuildStation):
            self._station(actor, action)
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
        if actor is nxt and self.tunnel is None and not isinstance(action, EndTurn):
            # The table moved on without pressing "end turn": end it for them.
            self._end_turn()
            if self.over:
                raise IllegalActionError("the game is over", rule="game-over")
            return
        raise IllegalActionError(
            f"it is {self.current_player.color}'s turn, not {actor.color}'s", rule="not-your-turn"
        )

    def _payment(self, ok: bool, message: str, rule: str) -> None:
        if ok or self.payment_mode == "off":
            return
        if self.payment_mode == "strict":
            raise IllegalActionError(message, rule=rule)
        self.warnings.append(message)

    def _check_cards(self, check: Any, cards: Sequence[Card] | None, what: str) -> None:
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
            self._payment(False, str(exc), exc.rule)

    def _route(self, route_id: str) -> Route:
        try:
            return self.map.route(route_id)
        except NotationError as exc:
            raise IllegalActionError(str(exc), rule="unknown-route") from None

    def _claim(self, p: TrackedPlayer, action: ClaimRoute) -> None:
        route = self._route(action.route)
        check_route_free(self.map, self.route_owner, route, p.color, self.n_players)
        check_trains(route, p.trains)
        self._check_cards(lambda c: check_route_payment(route, c), action.cards, route.id)
        if route.tunnel and action.cards is not None:
            self.tunnel = TrackedTunnel(route.id, tuple(action.cards))
            self.acted = True
            return
        self._place(p, route)

    def _tunnel_step(self, p: TrackedPlayer, action: Action) -> None:
        t = self.tunnel
        if t is None:
            raise IllegalActionError("no tunnel is being built", rule="no-tunnel")
        if isinstance(action, WithdrawTunnel):
            self.tunnel = None
            return
        if isinstance(action, RevealTunnel):
            if t.revealed is not None:
                raise IllegalActionError(
                    "the tunnel's cards were already revealed", rule="tunnel-revealed"
                )
            if len(action.cards) > self.map.tunnel_reveal:
                raise IllegalActionError(
                    f"a tunnel reveals at most {self.map.tunnel_reveal} cards", rule="tunnel-reveal"
                )
            t.revealed = tuple(action.cards)
            s = t.surcharge
            if s is not None and s.extra == 0:
                self.tunnel = None
                self._place(p, self.map.routes[t.route])
            return
        assert isinstance(action, PayTunnel)
        s = t.surcharge
        if s is not None:
            self._check_cards(lambda c: check_surcharge_payment(s, c), action.cards, "the tunnel")
        elif self.payment_mode == "strict":
            raise IllegalActionError(
                "tap the three revealed cards before paying the tunnel", rule="tunnel-not-revealed"
            )
        self.tunnel = None
        self._place(p, self.map.routes[t.route])

    def _place(self, p: TrackedPlayer, route: Route) -> None:
        self.route_owner[route.id] = p.color
        p.routes.append(route.id)
        p.trains -= route.length
        p.score += self.map.points_for(route)
        self.acted = True

    def _station(self, p: TrackedPlayer, action: BuildStation) -> None:
        if action.city not in self.map.cities:
            raise IllegalActionError(f"unknown city id {action.city!r}", rule="unknown-city")
        check_station_free(self.map, self.station_owner, action.city, len(p.stations))
        built = len(p.stations)
        self._check_cards(
            lambda c: check_station_payment(built, c, self.map.station_costs),
            action.cards,
            f"station {built + 1} ({station_cost(built, self.map.station_costs)} cards)",
        )
        self.station_owner[action.city] = p.color
        p.stations.append(action.city)
        self.acted = True

    def _check_tickets(self, p: TrackedPlayer, tickets: Sequence[str]) -> None:
        if len(set(tickets)) != len(tickets):
            raise IllegalActionError("a ticket is named twice", rule="ticket-twice")
        for t in tickets:
            if t not in self.map.tickets:
                raise IllegalActionError(f"unknown ticket id {t!r}", rule="unknown-ticket")
            if t not in self._variant_tickets:
                raise IllegalActionError(
                    f"{t} is not a ticket of the {self.variant.name} variant", rule="wrong-variant"
                )
            holder = self.ticket_holder(t)
            if holder is not None:
                raise IllegalActionError(f"{t} is already held by {holder}", rule="ticket-held")

    def _keep_initial(self, p: TrackedPlayer, action: KeepTickets) -> None:
        self._check_tickets(p, action.tickets)
        s = self.variant.setup
        check_first_keep(self.map, self.variant, action.tickets, s.long_dealt + s.regular_dealt)
        longs = [t for t in action.tickets if self.map.tickets[t].long]
        if len(longs) > max(s.long_dealt, 0):
            raise IllegalActionError(
                f"only {s.long_dealt} long ticket{'s are' if s.long_dealt != 1 else ' is'} dealt "
                f"in {self.variant.name}",
                rule="keep-long-maximum",
            )
        if len(action.tickets) > s.long_dealt + s.regular_dealt:
            raise IllegalActionError(
                f"only {s.long_dealt + s.regular_dealt} tickets are dealt at the start",
                rule="keep-maximum",
            )
        p.tickets.extend(action.tickets)
        p.ready = True
        if all(q.ready for q in self.players):
            self.phase = "playing"

    def _keep_tickets(self, p: TrackedPlayer, action: KeepTickets) -> None:
        self._check_tickets(p, action.tickets)
        if not 1 <= len(action.tickets) <= self.variant.draw:
            raise IllegalActionError(
                f"keep 1 to {self.variant.draw} of the tickets drawn, not {len(action.tickets)}",
                rule="keep-minimum" if not action.tickets else "keep-maximum",
            )
        if any(self.map.tickets[t].long for t in action.tickets) and "big_cities" not in (
            self.variant.decks
        ):
            raise IllegalActionError(
                "long tickets are dealt only at the start, never drawn later", rule="long-ticket"
            )
        p.tickets.extend(action.tickets)
        self.acted = True

    def _end_turn(self) -> None:
        if self.tunnel is not None:
            raise IllegalActionError(
                f"first settle the tunnel {self.tunnel.route}", rule="tunnel-pending"
            )
        if self.final.turn_ended(
            self.current, self.current_player.trains, self.map.final_round_trains, self.n_players
        ):
            self.phase = "over"
        self.acted = False
        self.turn += 1
        if not self.over:
            self.current = (self.current + 1) % self.n_players

    # --- results and forms ------------------------------------------------------------
    def end_positions(self) -> list[PlayerEnd]:
        return [
            PlayerEnd(p.color, p.name, tuple(p.routes), tuple(p.stations), tuple(p.tickets))
            for p in self.players
        ]

    def final_score(self) -> FinalScore:
        return score_final(self.map, self.end_positions())

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "tracker",
            "map": self.map.id,
            "variant": self.variant.id,
            "payment_mode": self.payment_mode,
            "phase": self.phase,
            "current": self.current,
            "acted": self.acted,
            "turn": self.turn,
            "final_trigger": self.final.trigger,
            "turns_left": self.final.turns_left,
            "players": [p.to_json() for p in self.players],
            "route_owner": dict(self.route_owner),
            "station_owner": dict(self.station_owner),
            "tunnel": None if self.tunnel is None else self.tunnel.to_json(),
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], game_map: GameMap) -> TableTracker:
        try:
            players = [TrackedPlayer.from_json(p) for p in data["players"]]
            t = cls(
                game_map,
                [(p.name, p.color) for p in players],
                variant=data["variant"],
                payment_mode=data["payment_mode"],
            )
            t.players = players
            t.phase = data["phase"]
            t.current = int(data["current"])
            t.acted = bool(data["acted"])
            t.turn = int(data["turn"])
            t.final = FinalRound(data["final_trigger"], data["turns_left"])
            t.route_owner = dict(data["route_owner"])
            t.station_owner = dict(data["station_owner"])
            t.tunnel = None if data["tunnel"] is None else TrackedTunnel.from_json(data["tunnel"])
            t.warnings = list(data["warnings"])
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"not a tracker state: {exc}") from exc
        return t

    def copy(self) -> TableTracker:
        return copy.deepcopy(self, {id(self.map): self.map, id(self.variant): self.variant})
