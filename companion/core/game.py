"""The full simulation: every card known, a seeded shuffle, every rule enforced.

``Game.apply(action)`` checks the action completely before changing anything, so an illegal
action (IllegalActionError, naming the rule) leaves the game exactly as it was.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .actions import (
    Action,
    BuildStation,
    ClaimRoute,
    DrawDeck,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnel,
    WithdrawTunnel,
)
from .board import GameMap, Route, Variant
from .cards import LOCO, Card, full_deck
from .errors import IllegalActionError, NotationError
from .payment import (
    Surcharge,
    check_route_payment,
    check_station_payment,
    check_surcharge_payment,
    has_cards,
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


class Phase(StrEnum):
    SETUP = "setup"  # players choose their first tickets
    PLAYING = "playing"
    OVER = "over"


@dataclass
class PlayerState:
    color: str
    name: str
    hand: Counter[Card] = field(default_factory=Counter)
    tickets: list[str] = field(default_factory=list)
    offered: list[str] = field(default_factory=list)  # drawn, not yet kept or returned
    routes: list[str] = field(default_factory=list)
    stations: list[str] = field(default_factory=list)
    trains: int = 45
    score: int = 0  # the score track: route points so far
    ready: bool = False  # chose the first tickets

    def to_json(self) -> dict[str, Any]:
        return {
            "color": self.color,
            "name": self.name,
            "hand": {
                c.value: n for c, n in sorted(self.hand.items(), key=lambda kv: kv[0].value) if n
            },
            "tickets": list(self.tickets),
            "offered": list(self.offered),
            "routes": list(self.routes),
            "stations": list(self.stations),
            "trains": self.trains,
            "score": self.score,
            "ready": self.ready,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PlayerState:
        return cls(
            color=d["color"],
            name=d["name"],
            hand=Counter({Card(k): int(v) for k, v in d["hand"].items()}),
            tickets=list(d["tickets"]),
            offered=list(d["offered"]),
            routes=list(d["routes"]),
            stations=list(d["stations"]),
            trains=int(d["trains"]),
            score=int(d["score"]),
            ready=bool(d["ready"]),
        )

    def end_position(self) -> PlayerEnd:
        return PlayerEnd(
            color=self.color,
            name=self.name,
            routes=tuple(self.routes),
            stations=tuple(self.stations),
            tickets=tuple(self.tickets),
        )


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


def _cards_json(cards: Sequence[Card | None]) -> list[str | None]:
    return [None if c is None else c.value for c in cards]


class Game:
    """A complete game of Ticket to Ride: Europe with all hidden information."""

    def __init__(self, game_map: GameMap, variant: Variant, players: list[PlayerState]) -> None:
        self.map = game_map
        self.variant = variant
        self.players = players
        self.deck: list[Card] = []  # top is the end of the list
        self.discard: list[Card] = []
        self.face_up: list[Card | None] = []
        self.ticket_deck: list[str] = []  # top is index 0
        self.box: list[str] = []  # tickets out of the game
        self.route_owner: dict[str, str] = {}
        self.station_owner: dict[str, str] = {}
        self.current = 0
        self.phase = Phase.SETUP
        self.cards_drawn = 0
        self.tunnel: PendingTunnel | None = None
        self.final = FinalRound()
        self.turn = 0
        self.last_revealed: tuple[Card, ...] = ()  # the cards the latest tunnel turned up
        self.rng = random.Random(0)

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
                PlayerState(color=c, name=n or c, trains=game_map.trains_per_player)
                for n, c in players
            ],
        )
        game.rng = random.Random(seed)
        game.deck = full_deck(game_map.cards_per_color, game_map.locomotive_cards)
        game.rng.shuffle(game.deck)
        for p in game.players:
            for _ in range(game_map.hand_size):
                p.hand[game.deck.pop()] += 1
        game.face_up = [game._take_from_deck() for _ in range(game_map.face_up)]
        game._check_face_up()

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
    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def current_player(self) -> PlayerState:
        return self.players[self.current]

    def player(self, color: str) -> PlayerState:
        for p in self.players:
            if p.color == color:
                return p
        raise IllegalActionError(f"no player plays {color} in this game", rule="unknown-player")

    @property
    def final_round(self) -> bool:
        return self.final.started

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def can_draw_card(self, *, second: bool = False) -> bool:
        if self.deck or self.discard:
            return True
        return any(c is not None and (not second or c is not LOCO) for c in self.face_up)

    def all_cards(self) -> Counter[Card]:
        """Every train card wherever it is (for checking conservation)."""
        total: Counter[Card] = Counter(self.deck)
        total.update(self.discard)
        total.update(c for c in self.face_up if c is not None)
        for p in self.players:
            total.update(p.hand)
        if self.tunnel is not None:
            total.update(self.tunnel.played)
            total.update(self.tunnel.revealed)
        return total

    def expected_actor(self) -> str | None:
        if self.phase is Phase.SETUP:
            return None
        if self.phase is Phase.OVER:
            return None
        return self.current_player.color

    # --- card movement ----------------------------------------------------------------
    def _take_from_deck(self) -> Card | None:
        if not self.deck and self.discard:
            self.deck = self.discard
            self.discard = []
            self.rng.shuffle(self.deck)
        return self.deck.pop() if self.deck else None

    def _check_face_up(self) -> None:
        """Three or more face-up locomotives: discard all five and turn up five more."""
        limit = self.map.face_up_locomotive_limit
        for _ in range(20):
            if sum(1 for c in self.face_up if c is LOCO) < limit:
                return
            pool = (
                Counter(self.deck)
                + Counter(self.discard)
                + Counter(c for c in self.face_up if c is not None)
            )
            plain = sum(n for c, n in pool.items() if c is not LOCO)
            if plain < len(self.face_up) - limit + 1:
                return  # no reshuffle can help: leave the row as it is
            self.discard.extend(c for c in self.face_up if c is not None)
            self.face_up = [self._take_from_deck() for _ in range(len(self.face_up))]

    def _refill(self) -> None:
        self.face_up = [c if c is not None else self._take_from_deck() for c in self.face_up]
        self._check_face_up()

    # --- applying actions -------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply one action, or raise IllegalActionError and change nothing."""
        if self.phase is Phase.OVER:
            raise IllegalActionError("the game is over", rule="game-over")
        actor = self.player(action.player)
        if self.phase is Phase.SETUP:
            if not isinstance(action, KeepTickets):
                raise IllegalActionError(
                    "every player first chooses which of the dealt tickets to keep",
                    rule="setup-tickets",
                )
            self._keep_initial(actor, action)
            return
        if actor is not self.current_player:
            raise IllegalActionError(
                f"it is {self.current_player.color}'s turn, not {actor.color}'s",
                rule="not-your-turn",
            )
        if self.tunnel is not None and not isinstance(action, PayTunnel | WithdrawTunnel):
            raise IllegalActionError(
                f"first pay the tunnel surcharge for {self.tunnel.route} or withdraw",
                rule="tunnel-pending",
            )
        if actor.offered and not isinstance(action, KeepTickets):
            raise IllegalActionError(
                "first choose which of the drawn tickets to keep", rule="tickets-pending"
            )
        if self.cards_drawn and not isinstance(action, DrawDeck | DrawFaceUp):
            raise IllegalActionError(
                "after drawing one train card the turn is spent drawing the second",
                rule="one-action-per-turn",
            )
        handler = {
            DrawDeck: self._draw_deck,
            DrawFaceUp: self._draw_face_up,
            ClaimRoute: self._claim,
            PayTunnel: self._pay_tunnel,
            WithdrawTunnel: self._withdraw_tunnel,
            BuildStation: self._build_station,
            DrawTickets: self._draw_tickets,
            KeepTickets: self._keep_tickets,
            Pass: self._pass,
        }.get(type(action))
        if handler is None:
            raise IllegalActionError(
                f"{action.TYPE} is a table-tracker action, not part of a simulated game",
                rule="not-in-simulation",
            )
        handler(actor, action)  # type: ignore[operator]

    def _keep_initial(self, p: PlayerState, action: KeepTickets) -> None:
        if p.ready:
            raise IllegalActionError(
                f"{p.color} already chose the first tickets", rule="setup-done"
            )
        chosen = self._check_chosen(p, action.tickets)
        check_first_keep(self.map, self.variant, chosen, len(p.offered))
        s = self.variant.setup
        returned = [t for t in p.offered if t not in chosen]
        p.tickets.extend(chosen)
        p.offered = []
        p.ready = True
        bottom: list[str] = []
        for t in returned:
            where = s.unkept_long if self.map.tickets[t].long else s.unkept_regular
            (bottom if where == "bottom" else self.box).append(t)
        self.rng.shuffle(bottom)
        self.ticket_deck.extend(bottom)
        if all(q.ready for q in self.players):
            self.phase = Phase.PLAYING

    def _check_chosen(self, p: PlayerState, tickets: Sequence[str]) -> list[str]:
        if len(set(tickets)) != len(tickets):
            raise IllegalActionError("a ticket is named twice", rule="ticket-twice")
        for t in tickets:
            if t not in p.offered:
                raise IllegalActionError(
                    f"{t} is not among the tickets offered to {p.color}", rule="ticket-not-offered"
                )
        return list(tickets)

    def _draw_deck(self, p: PlayerState, action: DrawDeck) -> None:
        if not self.deck and not self.discard:
            raise IllegalActionError("the draw pile and the discards are empty", rule="no-cards")
        card = self._take_from_deck()
        assert card is not None
        p.hand[card] += 1
        self._after_draw()

    def _draw_face_up(self, p: PlayerState, action: DrawFaceUp) -> None:
        if action.card not in self.face_up:
            raise IllegalActionError(f"no {action.card.value} card is face up", rule="not-face-up")
        if action.card is LOCO and self.cards_drawn:
            raise IllegalActionError(
                "a face-up locomotive cannot be taken as the second card", rule="second-locomotive"
            )
        self.face_up[self.face_up.index(action.card)] = None
        p.hand[action.card] += 1
        self._refill()
        if action.card is LOCO:
            self._end_turn()
        else:
            self._after_draw()

    def _after_draw(self) -> None:
        self.cards_drawn += 1
        if self.cards_drawn >= 2 or not self.can_draw_card(second=True):
            self._end_turn()

    def _route(self, route_id: str) -> Route:
        try:
            return self.map.route(route_id)
        except NotationError as exc:
            raise IllegalActionError(str(exc), rule="unknown-route") from None

    def _claim(self, p: PlayerState, action: ClaimRoute) -> None:
        route = self._route(action.route)
        check_route_free(self.map, self.route_owner, route, p.color, self.n_players)
        check_trains(route, p.trains)
        if action.cards is None:
            raise IllegalActionError(
                "a claim must say which cards pay for it", rule="no-cards-given"
            )
        cards = list(action.cards)
        check_route_payment(route, cards)
        if not has_cards(p.hand, cards):
            raise IllegalActionError(f"{p.color} does not hold those cards", rule="not-in-hand")
        p.hand.subtract(cards)
        p.hand += Counter()  # drop zero counts
        if not route.tunnel:
            self.discard.extend(cards)
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
            self.discard.extend(cards)
            self.discard.extend(revealed)
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
        if not has_cards(p.hand, cards):
            raise IllegalActionError(f"{p.color} does not hold those cards", rule="not-in-hand")
        p.hand.subtract(cards)
        p.hand += Counter()
        tunnel, self.tunnel = self.tunnel, None
        self.discard.extend(tunnel.played)
        self.discard.extend(cards)
        self.discard.extend(tunnel.revealed)
        self._place(p, self.map.routes[tunnel.route])
        self._end_turn()

    def _withdraw_tunnel(self, p: PlayerState, action: WithdrawTunnel) -> None:
        if self.tunnel is None:
            raise IllegalActionError("no tunnel is waiting for payment", rule="no-tunnel")
        tunnel, self.tunnel = self.tunnel, None
        p.hand.update(tunnel.played)
        self.discard.extend(tunnel.revealed)
        self._end_turn()

    def _place(self, p: PlayerState, route: Route) -> None:
        self.route_owner[route.id] = p.color
        p.routes.append(route.id)
        p.trains -= route.length
        p.score += self.map.points_for(route)

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
        if not has_cards(p.hand, cards):
            raise IllegalActionError(f"{p.color} does not hold those cards", rule="not-in-hand")
        p.hand.subtract(cards)
        p.hand += Counter()
        self.discard.extend(cards)
        self.station_owner[action.city] = p.color
        p.stations.append(action.city)
        self._end_turn()

    def _draw_tickets(self, p: PlayerState, action: DrawTickets) -> None:
        if not self.ticket_deck:
            raise IllegalActionError("the ticket deck is empty", rule="no-tickets")
        n = min(self.variant.draw, len(self.ticket_deck))
        p.offered = self.ticket_deck[:n]
        del self.ticket_deck[:n]

    def _keep_tickets(self, p: PlayerState, action: KeepTickets) -> None:
        if not p.offered:
            raise IllegalActionError("no tickets were drawn to choose from", rule="no-offer")
        chosen = self._check_chosen(p, action.tickets)
        need = min(self.variant.draw_keep_min, len(p.offered))
        if len(chosen) < need:
            raise IllegalActionError(
                f"keep at least {need} of the drawn tickets", rule="keep-minimum"
            )
        self.ticket_deck.extend(t for t in p.offered if t not in chosen)
        p.tickets.extend(chosen)
        p.offered = []
        self._end_turn()

    def _pass(self, p: PlayerState, action: Pass) -> None:
        if self.can_draw_card() or self.ticket_deck:
            raise IllegalActionError(
                "a player may pass only when no train card and no ticket can be drawn",
                rule="pass",
            )
        self._end_turn()

    def _end_turn(self) -> None:
        if self.final.turn_ended(
            self.current, self.current_player.trains, self.map.final_round_trains, self.n_players
        ):
            self.phase = Phase.OVER
        self.cards_drawn = 0
        self.tunnel = None
        self.turn += 1
        if self.phase is not Phase.OVER:
            self.current = (self.current + 1) % self.n_players

    # --- results ----------------------------------------------------------------------
    def end_positions(self) -> list[PlayerEnd]:
        return [p.end_position() for p in self.players]

    def final_score(self) -> FinalScore:
        return score_final(self.map, self.end_positions())

    # --- JSON form --------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {
            "kind": "simulation",
            "map": self.map.id,
            "variant": self.variant.id,
            "phase": self.phase.value,
            "current": self.current,
            "turn": self.turn,
            "cards_drawn": self.cards_drawn,
            "final_trigger": self.final.trigger,
            "turns_left": self.final.turns_left,
            "players": [p.to_json() for p in self.players],
            "deck": _cards_json(self.deck),
            "discard": _cards_json(self.discard),
            "face_up": _cards_json(self.face_up),
            "ticket_deck": list(self.ticket_deck),
            "box": list(self.box),
            "route_owner": dict(self.route_owner),
            "station_owner": dict(self.station_owner),
            "tunnel": None if self.tunnel is None else self.tunnel.to_json(),
            "last_revealed": [c.value for c in self.last_revealed],
            "rng": [version, list(internal), gauss],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], game_map: GameMap) -> Game:
        try:
            game = cls(
                game_map,
                game_map.variant(data["variant"]),
                [PlayerState.from_json(p) for p in data["players"]],
            )
            game.phase = Phase(data["phase"])
            game.current = int(data["current"])
            game.turn = int(data["turn"])
            game.cards_drawn = int(data["cards_drawn"])
            game.final = FinalRound(data["final_trigger"], data["turns_left"])
            game.deck = [Card(c) for c in data["deck"]]
            game.discard = [Card(c) for c in data["discard"]]
            game.face_up = [None if c is None else Card(c) for c in data["face_up"]]
            game.ticket_deck = list(data["ticket_deck"])
            game.box = list(data["box"])
            game.route_owner = dict(data["route_owner"])
            game.station_owner = dict(data["station_owner"])
            game.tunnel = (
                None if data["tunnel"] is None else PendingTunnel.from_json(data["tunnel"])
            )
            game.last_revealed = tuple(Card(c) for c in data["last_revealed"])
            version, internal, gauss = data["rng"]
            game.rng.setstate((version, tuple(internal), gauss))
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"not a simulation state: {exc}") from exc
        return game

    def copy(self) -> Game:
        """A deep copy that shares the (immutable) map and variant."""
        return copy.deepcopy(self, {id(self.map): self.map, id(self.variant): self.variant})


def apply(game: Game, action: Action) -> Game:
    """Pure form: a new game with ``action`` applied (``game`` is not changed)."""
    new = game.copy()
    new.apply(action)
    return new
