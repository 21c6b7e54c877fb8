"""The full Europe simulation: every card known, a seeded shuffle, every rule enforced.

``Game.apply(action)`` checks the action completely before changing anything, so an illegal
action (IllegalActionError, naming the rule) leaves the game exactly as it was. The card, turn
and ticket machinery is :class:`~companion.core.simulation.Simulation`'s (shared with London);
this module adds tunnels, stations and ticket variants.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .actions import (
    Action,
    BuildStation,
    ClaimRoute,
    KeepTickets,
    PayTunnel,
    WithdrawTunnel,
)
from .board import GameMap, Route, Variant
from .cards import EUROPE_CARDS, Card
from .errors import IllegalActionError, NotationError
from .payment import (
    Surcharge,
    check_route_payment,
    check_station_payment,
    check_surcharge_payment,
    payment_options,
    station_options,
    tunnel_surcharge,
)
from .rules import (
    DOUBLES_CLOSED_UP_TO,
    TurnRules,
    check_first_keep,
    check_players,
    check_station_free,
    route_open,
)
from .scoring import EuropeResults
from .seats import PiecesAlias
from .simulation import Phase, SimPlayer, Simulation, apply

__all__ = ["Game", "PendingTunnel", "Phase", "PlayerState", "StationSeat", "apply"]


@dataclass(kw_only=True)
class StationSeat:
    """A Europe player (simulated or tracked) also has the stations built: put first in the
    bases, before the seat."""

    stations: list[str] = field(default_factory=list)

    def _extra_json(self) -> dict[str, Any]:
        return {"stations": list(self.stations)}

    @classmethod
    def _extra_from_json(cls, d: Mapping[str, Any]) -> dict[str, Any]:
        return {"stations": list(d["stations"])}


@dataclass
class PlayerState(StationSeat, SimPlayer[Card]):
    pieces: int = 45
    trains = PiecesAlias()
    PIECES: ClassVar[str] = "trains"
    CARD: ClassVar[Callable[[str], Any]] = Card


@dataclass(frozen=True)
class PendingTunnel:
    route: str
    played: tuple[Card, ...]
    revealed: tuple[Card, ...]
    surcharge: Surcharge

    def to_json(self) -> dict[str, Any]:
        return {
            "route": self.route,
            "played": [c.value for c in self.played],
            "revealed": [c.value for c in self.revealed],
            "extra": self.surcharge.extra,
            "extra_color": self.surcharge.color.value,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PendingTunnel:
        return cls(
            route=d["route"],
            played=tuple(Card(c) for c in d["played"]),
            revealed=tuple(Card(c) for c in d["revealed"]),
            surcharge=Surcharge(int(d["extra"]), Card(d["extra_color"])),
        )


class Game(EuropeResults, Simulation[Card, PlayerState, Route]):
    """A complete game of Ticket to Ride: Europe with all hidden information."""

    map: GameMap
    CARD_NOUN: ClassVar[str] = "train card"
    NOT_SIMULATED: ClassVar[str] = "{type} is a table-tracker action, not part of a simulated game"
    HANDLERS: ClassVar[Mapping[type, str]] = {
        **Simulation.HANDLERS,
        PayTunnel: "_pay_tunnel",
        WithdrawTunnel: "_withdraw_tunnel",
        BuildStation: "_build_station",
    }

    def __init__(self, game_map: GameMap, variant: Variant, players: list[PlayerState]) -> None:
        rules = TurnRules(
            face_up_wild_limit=game_map.face_up_locomotive_limit,
            final_round_pieces=game_map.final_round_trains,
            tickets_drawn=variant.draw,
            tickets_draw_keep_min=variant.draw_keep_min,
            doubles_closed_up_to=DOUBLES_CLOSED_UP_TO,
        )
        super().__init__(game_map, EUROPE_CARDS, rules, players)
        self.variant = variant
        self.box: list[str] = []  # tickets out of the game
        self.station_owner: dict[str, str] = {}
        self.tunnel: PendingTunnel | None = None
        self.last_revealed: tuple[Card, ...] = ()  # the cards the latest tunnel turned up

    def _shared(self) -> tuple[object, ...]:
        return (self.map, self.variant)

    # --- creation ---------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        game_map: GameMap,
        players: Sequence[tuple[str, str]],
        *,
        variant: str = "europe",
        seed: int = 0,
    ) -> Game:
        """Shuffle, deal 4 cards each, turn up 5 and deal the first tickets.

        ``players`` is a sequence of (name, colour) in turn order.
        """
        check_players(players)
        v = game_map.variant(variant)
        game = cls(
            game_map,
            v,
            [
                PlayerState(color=c, name=n or c, pieces=game_map.trains_per_player)
                for n, c in players
            ],
        )
        game._deal(
            seed,
            EUROPE_CARDS.deck(game_map.cards_per_color, game_map.locomotive_cards),
            game_map.hand_size,
            game_map.face_up,
        )
        long_t, regular_t = game_map.tickets_of_variant(v)
        longs = [t.id for t in long_t]
        regulars = [t.id for t in regular_t]
        game.rng.shuffle(longs)
        game.rng.shuffle(regulars)
        for p in game.players:
            p.offered = [longs.pop(0) for _ in range(min(v.setup.long_dealt, len(longs)))]
            p.offered += [regulars.pop(0) for _ in range(min(v.setup.regular_dealt, len(regulars)))]
        game.box = longs
        game.ticket_deck = regulars
        return game

    # --- queries ----------------------------------------------------------------------
    def all_cards(self) -> Counter[Card]:
        """Every train card wherever it is (for checking conservation)."""
        total = super().all_cards()
        if self.tunnel is not None:
            total.update(self.tunnel.played)
            total.update(self.tunnel.revealed)
        return total

    # --- applying actions -------------------------------------------------------------
    def _check_pending(self, action: Action) -> None:
        if self.tunnel is not None and not isinstance(action, PayTunnel | WithdrawTunnel):
            raise IllegalActionError(
                f"first pay the tunnel surcharge for {self.tunnel.route} or withdraw",
                rule="tunnel-pending",
            )

    def _keep_initial(self, p: PlayerState, action: KeepTickets) -> None:
        if p.ready:
            raise IllegalActionError(
                f"{p.color} already chose the first tickets", rule="setup-done"
            )
        chosen = self._check_chosen(p, action.tickets)
        check_first_keep(self.map, self.variant, chosen, len(p.offered))
        s = self.variant.setup
        returned = [t for t in p.offered if t not in chosen]
        self._kept_first(p, chosen)
        bottom: list[str] = []
        for t in returned:
            where = s.unkept_long if self.map.tickets[t].long else s.unkept_regular
            (bottom if where == "bottom" else self.box).append(t)
        self.rng.shuffle(bottom)
        self.ticket_deck.extend(bottom)

    def _claim(self, p: PlayerState, action: ClaimRoute) -> None:
        route = self._route(action.route)
        self._check_claim(route, p)
        cards = self._pay(p, action, route, lambda c: check_route_payment(route, c))
        if not route.tunnel:
            self._to_discard(cards)
            self._place(p, route)
            self._end_turn()
            return
        revealed: list[Card] = []
        for _ in range(self.map.tunnel_reveal):
            card = self._take_from_deck()
            if card is None:
                break
            revealed.append(card)
        surcharge = tunnel_surcharge(cards, revealed)
        self.last_revealed = tuple(revealed)
        if surcharge.extra == 0:
            self._to_discard([*cards, *revealed])
            self._place(p, route)
            self._end_turn()
            return
        self.tunnel = PendingTunnel(route.id, tuple(cards), tuple(revealed), surcharge)

    def _pay_tunnel(self, p: PlayerState, action: PayTunnel) -> None:
        if self.tunnel is None:
            raise IllegalActionError("no tunnel is waiting for payment", rule="no-tunnel")
        if action.cards is None:
            raise IllegalActionError("say which cards pay the surcharge", rule="no-cards-given")
        cards = list(action.cards)
        check_surcharge_payment(self.tunnel.surcharge, cards)
        self._take_cards(p, cards)
        tunnel, self.tunnel = self.tunnel, None
        self._to_discard([*tunnel.played, *cards, *tunnel.revealed])
        self._place(p, self.map.routes[tunnel.route])
        self._end_turn()

    def _withdraw_tunnel(self, p: PlayerState, action: WithdrawTunnel) -> None:
        if self.tunnel is None:
            raise IllegalActionError("no tunnel is waiting for payment", rule="no-tunnel")
        tunnel, self.tunnel = self.tunnel, None
        p.hand.update(tunnel.played)
        self._to_discard(tunnel.revealed)
        self._end_turn()

    def _can_build(self, p: PlayerState) -> bool:
        """A route ``p`` may claim and pay for, or a station ``p`` may build and pay for."""
        n, closed_up_to = self.n_players, self.rules.doubles_closed_up_to
        for route in self.map.routes.values():
            if route.length > p.trains or not route_open(
                self.route_owner, route.id, route.twin, p.color, n, closed_up_to
            ):
                continue
            if next(payment_options(route, p.hand), None) is not None:
                return True
        built = len(p.stations)
        if built >= self.map.stations_per_player:
            return False
        if next(station_options(built, p.hand, self.map.station_costs), None) is None:
            return False
        return any(city not in self.station_owner for city in self.map.cities)

    def _place(self, p: PlayerState, route: Route) -> None:
        self._place_route(p, route.id, route.length, self.map.points_for(route))

    def _build_station(self, p: PlayerState, action: BuildStation) -> None:
        if action.city not in self.map.cities:
            raise IllegalActionError(f"unknown city id {action.city!r}", rule="unknown-city")
        check_station_free(self.map, self.station_owner, action.city, len(p.stations))
        if action.cards is None:
            raise IllegalActionError(
                "a station must say which cards pay for it", rule="no-cards-given"
            )
        cards = list(action.cards)
        check_station_payment(len(p.stations), cards, self.map.station_costs)
        self._take_cards(p, cards)
        self._to_discard(cards)
        self.station_owner[action.city] = p.color
        p.stations.append(action.city)
        self._end_turn()

    def _end_turn(self) -> None:
        self.tunnel = None
        super()._end_turn()

    # --- JSON form --------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "simulation",
            "map": self.map.id,
            "variant": self.variant.id,
            **self._turn_json(),
            "box": list(self.box),
            "route_owner": dict(self.route_owner),
            "station_owner": dict(self.station_owner),
            "tunnel": None if self.tunnel is None else self.tunnel.to_json(),
            "last_revealed": [c.value for c in self.last_revealed],
            "rng": self._rng_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], game_map: GameMap) -> Game:
        try:
            game = cls(
                game_map,
                game_map.variant(data["variant"]),
                [PlayerState.from_json(p) for p in data["players"]],
            )
            game._load_turn(data)
            game.box = list(data["box"])
            game.route_owner = dict(data["route_owner"])
            game.station_owner = dict(data["station_owner"])
            game.tunnel = (
                None if data["tunnel"] is None else PendingTunnel.from_json(data["tunnel"])
            )
            game.last_revealed = tuple(Card(c) for c in data["last_revealed"])
            game._load_rng(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"not a simulation state: {exc}") from exc
        return game
