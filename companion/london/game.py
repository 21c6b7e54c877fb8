"""The full London simulation: every card known, a seeded shuffle, every rule enforced.

``Game.apply(action)`` checks the action completely before changing anything, so an illegal
action (IllegalActionError, naming the rule) leaves the game exactly as it was.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import IllegalActionError, NotationError
from companion.core.game import Phase

from .actions import (
    Action,
    ClaimRoute,
    DrawDeck,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    Pass,
)
from .board import LondonMap, Route
from .cards import BUS, Card, full_deck
from .payment import check_route_payment, has_cards
from .rules import (
    FinalRound,
    check_buses,
    check_draw_keep,
    check_first_keep,
    check_players,
    check_route_free,
)
from .scoring import FinalScore, PlayerEnd, score_final

__all__ = ["Game", "Phase", "PlayerState", "apply"]


@dataclass
class PlayerState:
    color: str
    name: str
    hand: Counter[Card] = field(default_factory=Counter)
    tickets: list[str] = field(default_factory=list)
    offered: list[str] = field(default_factory=list)  # drawn, not yet kept or returned
    routes: list[str] = field(default_factory=list)
    buses: int = 17
    score: int = 0  # the score track: route points so far
    ready: bool = False  # chose the first tickets

    def to_json(self) -> dict[str, Any]:
        return {
            "color": self.color,
            "name": self.name,
            "hand": {c.value: n for c, n in sorted(self.hand.items()) if n},
            "tickets": list(self.tickets),
            "offered": list(self.offered),
            "routes": list(self.routes),
            "buses": self.buses,
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
            buses=int(d["buses"]),
            score=int(d["score"]),
            ready=bool(d["ready"]),
        )

    def end_position(self) -> PlayerEnd:
        return PlayerEnd(self.color, self.name, tuple(self.routes), tuple(self.tickets))


def _cards_json(cards: Sequence[Card | None]) -> list[str | None]:
    return [None if c is None else c.value for c in cards]


class Game:
    """A complete game of Ticket to Ride: London with all hidden information."""

    def __init__(self, game_map: LondonMap, players: list[PlayerState]) -> None:
        self.map = game_map
        self.players = players
        self.deck: list[Card] = []  # top is the end of the list
        self.discard: list[Card] = []
        self.face_up: list[Card | None] = []
        self.ticket_deck: list[str] = []  # top is index 0, bottom the end
        self.route_owner: dict[str, str] = {}
        self.current = 0
        self.phase = Phase.SETUP
        self.cards_drawn = 0
        self.final = FinalRound()
        self.turn = 0
        self.rng = random.Random(0)

    # --- creation ---------------------------------------------------------------------
    @classmethod
    def new(cls, game_map: LondonMap, players: Sequence[tuple[str, str]], *, seed: int = 0) -> Game:
        """Shuffle, deal 2 cards each, turn up 5 and deal 2 tickets each.

        ``players`` is a sequence of (name, colour) in turn order.
        """
        check_players(game_map, players)
        m = game_map
        game = cls(
            m, [PlayerState(color=c, name=n or c, buses=m.buses_per_player) for n, c in players]
        )
        game.rng = random.Random(seed)
        game.deck = full_deck(m.cards_per_color, m.bus_cards)
        game.rng.shuffle(game.deck)
        for p in game.players:
            for _ in range(m.hand_size):
                p.hand[game.deck.pop()] += 1
        game.face_up = [game._take_from_deck() for _ in range(m.face_up)]
        game._check_face_up()
        tickets = list(m.tickets)
        game.rng.shuffle(tickets)
        for p in game.players:
            n = min(m.tickets_dealt, len(tickets))
            p.offered, tickets = tickets[:n], tickets[n:]
        game.ticket_deck = tickets
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
        return any(c is not None and (not second or c is not BUS) for c in self.face_up)

    def all_cards(self) -> Counter[Card]:
        """Every transportation card wherever it is (for checking conservation)."""
        total: Counter[Card] = Counter(self.deck)
        total.update(self.discard)
        total.update(c for c in self.face_up if c is not None)
        for p in self.players:
            total.update(p.hand)
        return total

    def all_tickets(self) -> Counter[str]:
        """Every ticket wherever it is (deck, hands, offers)."""
        total: Counter[str] = Counter(self.ticket_deck)
        for p in self.players:
            total.update(p.tickets)
            total.update(p.offered)
        return total

    def expected_actor(self) -> str | None:
        if self.phase is not Phase.PLAYING:
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
        """Three or more face-up buses: discard all five and turn up five more.

        Repeated until the row holds fewer buses, unless the cards outside the hands cannot
        make such a row (then the row stays). The cap only guards against an endless loop: a
        better row is always possible then, and 1000 redeals that all fail do not happen.
        """
        limit = self.map.face_up_bus_limit
        for _ in range(1000):
            if sum(1 for c in self.face_up if c is BUS) < limit:
                return
            pool = (
                Counter(self.deck)
                + Counter(self.discard)
                + Counter(c for c in self.face_up if c is not None)
            )
            plain = sum(n for c, n in pool.items() if c is not BUS)
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
        if actor.offered and not isinstance(action, KeepTickets):
            raise IllegalActionError(
                "first choose which of the drawn tickets to keep", rule="tickets-pending"
            )
        if self.cards_drawn and not isinstance(action, DrawDeck | DrawFaceUp):
            raise IllegalActionError(
                "after drawing one card the turn is spent drawing the second",
                rule="one-action-per-turn",
            )
        if isinstance(action, DrawDeck):
            self._draw_deck(actor)
        elif isinstance(action, DrawFaceUp):
            self._draw_face_up(actor, action)
        elif isinstance(action, ClaimRoute):
            self._claim(actor, action)
        elif isinstance(action, DrawTickets):
            self._draw_tickets(actor)
        elif isinstance(action, KeepTickets):
            self._keep_tickets(actor, action)
        elif isinstance(action, Pass):
            self._pass()
        else:
            raise IllegalActionError(
                f"{action.TYPE} is not an action of a simulated London game",
                rule="not-in-simulation",
            )

    def _check_chosen(self, p: PlayerState, tickets: Sequence[str]) -> list[str]:
        if len(set(tickets)) != len(tickets):
            raise IllegalActionError("a ticket is named twice", rule="ticket-twice")
        for t in tickets:
            if t not in p.offered:
                raise IllegalActionError(
                    f"{t} is not among the tickets offered to {p.color}", rule="ticket-not-offered"
                )
        return list(tickets)

    def _keep_initial(self, p: PlayerState, action: KeepTickets) -> None:
        if p.ready:
            raise IllegalActionError(
                f"{p.color} already chose the first tickets", rule="setup-done"
            )
        chosen = self._check_chosen(p, action.tickets)
        check_first_keep(self.map, chosen, len(p.offered))
        # unkept first tickets go under the ticket deck
        self.ticket_deck.extend(t for t in p.offered if t not in chosen)
        p.tickets.extend(chosen)
        p.offered = []
        p.ready = True
        if all(q.ready for q in self.players):
            self.phase = Phase.PLAYING

    def _draw_deck(self, p: PlayerState) -> None:
        if not self.deck and not self.discard:
            raise IllegalActionError("the draw pile and the discards are empty", rule="no-cards")
        card = self._take_from_deck()
        assert card is not None
        p.hand[card] += 1
        self._after_draw()

    def _draw_face_up(self, p: PlayerState, action: DrawFaceUp) -> None:
        if action.card not in self.face_up:
            raise IllegalActionError(f"no {action.card.value} card is face up", rule="not-face-up")
        if action.card is BUS and self.cards_drawn:
            raise IllegalActionError(
                "a face-up bus cannot be taken as the second card", rule="second-bus"
            )
        self.face_up[self.face_up.index(action.card)] = None
        p.hand[action.card] += 1
        self._refill()
        if action.card is BUS:
            self._end_turn()  # a face-up bus is the whole draw
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
        check_buses(route, p.buses)
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
        self.discard.extend(cards)
        self._check_face_up()  # a row left with 3 buses (too few other cards) may now be fixed
        self.route_owner[route.id] = p.color
        p.routes.append(route.id)
        p.buses -= route.length
        p.score += self.map.points_for(route)
        self._end_turn()

    def _draw_tickets(self, p: PlayerState) -> None:
        if not self.ticket_deck:
            raise IllegalActionError("the ticket deck is empty", rule="no-tickets")
        n = min(self.map.tickets_draw, len(self.ticket_deck))
        p.offered = self.ticket_deck[:n]
        del self.ticket_deck[:n]

    def _keep_tickets(self, p: PlayerState, action: KeepTickets) -> None:
        if not p.offered:
            raise IllegalActionError("no tickets were drawn to choose from", rule="no-offer")
        chosen = self._check_chosen(p, action.tickets)
        check_draw_keep(self.map, chosen, len(p.offered))
        self.ticket_deck.extend(t for t in p.offered if t not in chosen)
        p.tickets.extend(chosen)
        p.offered = []
        self._end_turn()

    def _pass(self) -> None:
        if self.can_draw_card() or self.ticket_deck:
            raise IllegalActionError(
                "a player may pass only when no card and no ticket can be drawn", rule="pass"
            )
        self._end_turn()

    def _end_turn(self) -> None:
        if self.final.turn_ended(
            self.current, self.current_player.buses, self.map.final_round_buses, self.n_players
        ):
            self.phase = Phase.OVER
        self.cards_drawn = 0
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
            "route_owner": dict(self.route_owner),
            "rng": [version, list(internal), gauss],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], game_map: LondonMap) -> Game:
        try:
            if data["map"] != game_map.id:
                raise ValueError(f"a {data['map']} state, not {game_map.id}")
            game = cls(game_map, [PlayerState.from_json(p) for p in data["players"]])
            game.phase = Phase(data["phase"])
            game.current = int(data["current"])
            game.turn = int(data["turn"])
            game.cards_drawn = int(data["cards_drawn"])
            game.final = FinalRound(data["final_trigger"], data["turns_left"])
            game.deck = [Card(c) for c in data["deck"]]
            game.discard = [Card(c) for c in data["discard"]]
            game.face_up = [None if c is None else Card(c) for c in data["face_up"]]
            game.ticket_deck = list(data["ticket_deck"])
            game.route_owner = dict(data["route_owner"])
            version, internal, gauss = data["rng"]
            game.rng.setstate((version, tuple(internal), gauss))
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"not a London simulation state: {exc}") from exc
        return game

    def copy(self) -> Game:
        """A deep copy that shares the (immutable) map."""
        return copy.deepcopy(self, {id(self.map): self.map})


def apply(game: Game, action: Action) -> Game:
    """Pure form: a new game with ``action`` applied (``game`` is not changed)."""
    new = game.copy()
    new.apply(action)
    return new
