"""The Europe table tracker: follows a real game from what the table shows.

It never sees hands or decks. It knows the claims (from the camera or a tap on the map), the
stations, the cards tapped on the reader (when they are), ticket scans and turn ends, and it
checks everything those allow: whose turn it is, free routes, double routes, trains and
stations left, exact payments (when cards were tapped), tunnel surcharges and the final round.

Payment modes: ``strict`` (cards must be tapped and be an exact legal payment), ``lenient``
(tapped cards are checked; a wrong payment is accepted with a warning), ``off`` (not checked).
The machinery is :class:`~companion.core.tracking.Tracker`'s (shared with London); this module
adds tunnels, stations and ticket variants.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .actions import (
    Action,
    BuildStation,
    ClaimRoute,
    PayTunnel,
    RevealTunnel,
    WithdrawTunnel,
)
from .board import GameMap, Route, Variant
from .cards import Card
from .errors import IllegalActionError, NotationError
from .game import StationSeat
from .payment import (
    Surcharge,
    check_route_payment,
    check_station_payment,
    check_surcharge_payment,
    station_cost,
    tunnel_color,
    tunnel_surcharge,
)
from .rules import (
    DOUBLES_CLOSED_UP_TO,
    TurnRules,
    check_first_count,
    check_first_keep,
    check_players,
    check_station_free,
)
from .scoring import EuropeResults
from .seats import PiecesAlias
from .tracking import PAYMENT_MODES, Tracked, Tracker

__all__ = ["PAYMENT_MODES", "TableTracker", "TrackedPlayer", "TrackedTunnel"]


@dataclass
class TrackedPlayer(StationSeat, Tracked):
    pieces: int = 45
    trains = PiecesAlias()
    PIECES: ClassVar[str] = "trains"


@dataclass
class TrackedTunnel:
    """A tunnel being built. ``paid_as``: the colour the played cards count as for the
    surcharge (:func:`~companion.core.payment.tunnel_color`: also when a lenient table
    accepted a wrong payment)."""

    route: str
    played: tuple[Card, ...] | None
    revealed: tuple[Card, ...] | None = None
    paid_as: Card | None = None

    @property
    def surcharge(self) -> Surcharge | None:
        if self.played is None or self.revealed is None:
            return None
        return tunnel_surcharge(self.played, self.revealed, self.paid_as)

    def to_json(self) -> dict[str, Any]:
        s = self.surcharge
        return {
            "route": self.route,
            "played": None if self.played is None else [c.value for c in self.played],
            "revealed": None if self.revealed is None else [c.value for c in self.revealed],
            "paid_as": None if self.paid_as is None else self.paid_as.value,
            "extra": None if s is None else s.extra,
            "extra_color": None if s is None else s.color.value,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TrackedTunnel:
        def cards(v: Any) -> tuple[Card, ...] | None:
            return None if v is None else tuple(Card(c) for c in v)

        paid_as = d.get("paid_as")
        return cls(
            route=d["route"],
            played=cards(d["played"]),
            revealed=cards(d["revealed"]),
            paid_as=None if paid_as is None else Card(paid_as),
        )


class TableTracker(EuropeResults, Tracker[TrackedPlayer, Route]):
    """Follows a real table. ``apply`` raises IllegalActionError and changes nothing if refused."""

    map: GameMap

    HANDLERS: ClassVar[Mapping[type[Action], str]] = {
        **Tracker.HANDLERS,
        ClaimRoute: "_claim",
        BuildStation: "_station",
    }

    def __init__(
        self,
        game_map: GameMap,
        players: Sequence[tuple[str, str]],
        *,
        variant: str = "europe",
        payment_mode: str = "lenient",
        tickets_tracked: bool = False,
        turn_needs_action: bool = False,
    ) -> None:
        check_players(players)
        v = game_map.variant(variant)
        rules = TurnRules(
            face_up_wild_limit=game_map.face_up_locomotive_limit,
            final_round_pieces=game_map.final_round_trains,
            tickets_drawn=v.draw,
            tickets_draw_keep_min=v.draw_keep_min,
            doubles_closed_up_to=DOUBLES_CLOSED_UP_TO,
        )
        super().__init__(
            game_map,
            rules,
            [
                TrackedPlayer(color=c, name=n or c, pieces=game_map.trains_per_player)
                for n, c in players
            ],
            payment_mode,
            tickets_tracked=tickets_tracked,
            turn_needs_action=turn_needs_action,
        )
        self.variant: Variant = v
        self.station_owner: dict[str, str] = {}
        self.tunnel: TrackedTunnel | None = None
        self._variant_tickets = {
            t.id for group in game_map.tickets_of_variant(self.variant) for t in group
        }

    def _shared(self) -> tuple[object, ...]:
        return (self.map, self.variant)

    # --- applying ---------------------------------------------------------------------
    def _check_pending(self, action: Action) -> None:
        if self.tunnel is not None and not isinstance(
            action, RevealTunnel | PayTunnel | WithdrawTunnel
        ):
            raise IllegalActionError(
                f"first settle the tunnel {self.tunnel.route}: reveal the cards, pay or withdraw",
                rule="tunnel-pending",
            )

    def _settle(self, actor: TrackedPlayer, action: Action) -> bool:
        if isinstance(action, RevealTunnel | PayTunnel | WithdrawTunnel):
            self._tunnel_step(actor, action)
            return True
        return False

    def _may_end_for_them(self) -> bool:
        return self.tunnel is None

    def _claim(self, p: TrackedPlayer, action: ClaimRoute) -> None:
        route = self._route(action.route)
        self._check_route_claim(p, route, action.cards, check_route_payment)
        if route.tunnel and action.cards is not None:
            played = tuple(action.cards)
            self.tunnel = TrackedTunnel(route.id, played, paid_as=tunnel_color(route, played))
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
            self._check_cards(
                lambda c: check_surcharge_payment(s, c),
                action.cards,
                "the tunnel",
                (p, "tunnel", t.route),
                {"need": s.extra, "need_card": s.color.value},
            )
        elif self.payment_mode == "strict":
            raise IllegalActionError(
                "tap the three revealed cards before paying the tunnel", rule="tunnel-not-revealed"
            )
        self.tunnel = None
        self._place(p, self.map.routes[t.route])

    def _place(self, p: TrackedPlayer, route: Route) -> None:
        self._place_route(p, route.id, route.length, self.map.points_for(route))

    def _station(self, p: TrackedPlayer, action: BuildStation) -> None:
        if action.city not in self.map.cities:
            raise IllegalActionError(f"unknown city id {action.city!r}", rule="unknown-city")
        check_station_free(self.map, self.station_owner, action.city, len(p.stations))
        built = len(p.stations)
        self._check_cards(
            lambda c: check_station_payment(built, c, self.map.station_costs),
            action.cards,
            f"station {built + 1} ({station_cost(built, self.map.station_costs)} cards)",
            (p, "station", action.city),
            {"need": station_cost(built, self.map.station_costs), "need_card": "grey"},
        )
        self.station_owner[action.city] = p.color
        p.stations.append(action.city)
        self.acted = True

    def _check_ticket(self, ticket: str) -> None:
        if ticket not in self._variant_tickets:
            raise IllegalActionError(
                f"{ticket} is not a ticket of the {self.variant.name} variant",
                rule="wrong-variant",
                params={"ticket": ticket},
            )

    def _setup_dealt(self) -> int:
        s = self.variant.setup
        return s.long_dealt + s.regular_dealt

    def _setup_count(self, tickets: Sequence[str]) -> None:
        check_first_count(tickets, self._setup_dealt(), self.variant.setup.keep_min)

    def _setup_tickets(self, tickets: Sequence[str]) -> None:
        s = self.variant.setup
        check_first_keep(self.map, self.variant, tickets, self._setup_dealt())
        longs = [t for t in tickets if self.map.tickets[t].long]
        if len(longs) > max(s.long_dealt, 0):
            raise IllegalActionError(
                f"only {s.long_dealt} long ticket{'s are' if s.long_dealt != 1 else ' is'} dealt "
                f"in {self.variant.name}",
                rule="keep-long-maximum",
                params={"most": max(s.long_dealt, 0)},
            )

    def _draw_count(self) -> int:
        return self.variant.draw

    def _drawn_tickets(self, tickets: Sequence[str]) -> None:
        long = [t for t in tickets if self.map.tickets[t].long]
        if long and "big_cities" not in self.variant.decks:
            raise IllegalActionError(
                f"{long[0]} is a long ticket: long tickets are dealt only at the start, never "
                "drawn later",
                rule="long-ticket",
                params={"ticket": long[0]},
            )

    def _end_turn(self) -> None:
        if self.tunnel is not None:
            raise IllegalActionError(
                f"first settle the tunnel {self.tunnel.route}", rule="tunnel-pending"
            )
        super()._end_turn()

    # --- results and forms ------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "tracker",
            "map": self.map.id,
            "variant": self.variant.id,
            **self._turn_json(),
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
                tickets_tracked=bool(data.get("tickets_tracked", False)),
                turn_needs_action=bool(data.get("turn_needs_action", False)),
            )
            t._load_turn(data, players)
            t.station_owner = dict(data["station_owner"])
            t.tunnel = None if data["tunnel"] is None else TrackedTunnel.from_json(data["tunnel"])
            t.warnings = list(data["warnings"])
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"not a tracker state: {exc}") from exc
        return t
