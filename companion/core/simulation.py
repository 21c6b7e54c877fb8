"""The machinery every board's full simulation shares.

:class:`SimPlayer` (a player with every card known) and :class:`Simulation`: the seeded draw
pile, discards and face-up row (with its wild-card redeal), drawing two cards, the turn order and
the checks before any action, paying for a claim, drawing and keeping tickets, passing, the
final round, and the JSON form of all that. Europe (:mod:`companion.core.game`) adds tunnels,
stations and ticket variants; London (:mod:`companion.london.game`) its ticket rules.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, Self, TypeVar

from .actions import Action, DrawDeck, DrawTickets, FaceUpDraw, KeepTickets, Pass, RouteClaim
from .board import MapLookups
from .cards import CardSet, TrainCard
from .errors import IllegalActionError
from .networks import Link
from .payment import PaidRoute, has_cards
from .rules import (
    FinalRound,
    TurnRules,
    check_draw_keep,
    legal_row_exists,
    lookup_route,
    row_is_legal,
)
from .seats import Seat, TurnOrder

C = TypeVar("C", bound=TrainCard)
R = TypeVar("R", bound=Link)


class Phase(StrEnum):
    SETUP = "setup"  # players choose their first tickets
    PLAYING = "playing"
    OVER = "over"


@dataclass
class SimPlayer(Seat, Generic[C]):
    """A player of a simulated game: a seat with a hand and the tickets on offer. Each board
    names its cards (``CARD``) and pieces, and adds its own fields (``_extra_json``)."""

    hand: Counter[C] = field(default_factory=Counter)
    offered: list[str] = field(default_factory=list)  # drawn, not yet kept or returned
    CARD: ClassVar[Callable[[str], Any]]

    def _body_json(self) -> dict[str, Any]:
        return {
            "hand": {
                c.value: n for c, n in sorted(self.hand.items(), key=lambda kv: kv[0].value) if n
            },
            "tickets": list(self.tickets),
            "offered": list(self.offered),
            "routes": list(self.routes),
            **self._extra_json(),
        }

    @classmethod
    def _body_from_json(cls, d: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "hand": Counter({cls.CARD(k): int(v) for k, v in d["hand"].items()}),
            "tickets": list(d["tickets"]),
            "offered": list(d["offered"]),
            "routes": list(d["routes"]),
            **cls._extra_from_json(d),
        }


P = TypeVar("P", bound=SimPlayer[Any])


def cards_json(cards: Sequence[TrainCard | None]) -> list[str | None]:
    return [None if c is None else c.value for c in cards]


class Simulation(TurnOrder[P], Generic[C, P, R]):
    """A complete game with all hidden information, for any board.

    ``apply(action)`` checks the action completely before changing anything, so an illegal
    action (IllegalActionError, naming the rule) leaves the game exactly as it was.
    """

    map: MapLookups[R, Any]  # each board's class names its map type
    CARD_NOUN: ClassVar[str] = "card"  # "after drawing one <noun> ...", "no <noun> ... drawn"
    NOT_SIMULATED: ClassVar[str] = "{type} is not part of a simulated game"
    # action type (or a base every board's action of that kind has) -> the name of the method
    # that handles it (actor, action)
    HANDLERS: ClassVar[Mapping[type, str]] = {
        DrawDeck: "_draw_deck",
        FaceUpDraw: "_draw_face_up",
        RouteClaim: "_claim",
        DrawTickets: "_draw_tickets",
        KeepTickets: "_keep_tickets",
        Pass: "_pass",
    }

    def __init__(
        self, game_map: MapLookups[R, Any], cards: CardSet[C], rules: TurnRules, players: list[P]
    ) -> None:
        super().__init__(players, rules)
        self.map = game_map
        self.cards = cards
        self.deck: list[C] = []  # top is the end of the list
        self.discard: list[C] = []
        self.face_up: list[C | None] = []
        self.ticket_deck: list[str] = []  # top is index 0
        self.route_owner: dict[str, str] = {}
        self.phase = Phase.SETUP
        self.cards_drawn = 0
        self.rng = random.Random(0)

    def _shared(self) -> tuple[object, ...]:
        """Immutable objects a copy shares (the map; Europe's variant too)."""
        return (self.map,)

    # --- creation ---------------------------------------------------------------------
    def _deal(self, seed: int, deck: list[C], hand_size: int, face_up: int) -> None:
        """Shuffle ``deck``, deal ``hand_size`` cards each and turn up ``face_up``."""
        self.rng = random.Random(seed)
        self.deck = deck
        self.rng.shuffle(self.deck)
        for p in self.players:
            for _ in range(hand_size):
                p.hand[self.deck.pop()] += 1
        self.face_up = [self._take_from_deck() for _ in range(face_up)]
        self._check_face_up()

    # --- queries ----------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def can_draw_card(self, *, second: bool = False) -> bool:
        if self.deck or self.discard:
            return True
        wild = self.cards.wild
        return any(c is not None and (not second or c is not wild) for c in self.face_up)

    def all_cards(self) -> Counter[C]:
        """Every card wherever it is (for checking conservation)."""
        total: Counter[C] = Counter(self.deck)
        total.update(self.discard)
        total.update(c for c in self.face_up if c is not None)
        for p in self.players:
            total.update(p.hand)
        return total

    # --- card movement ----------------------------------------------------------------
    def _take_from_deck(self) -> C | None:
        if not self.deck and self.discard:
            self.deck = self.discard
            self.discard = []
            self.rng.shuffle(self.deck)
        return self.deck.pop() if self.deck else None

    def _check_face_up(self) -> None:
        """Three or more face-up wild cards: discard all five and turn up five more, until the
        row is legal, as the rulebook says, unless no row dealt from the cards left (draw pile,
        discards and the row) can be legal: then the row stays as it is.

        When a legal row exists, each redeal takes the next cards of the pile and, once the
        pile runs out, the discards in a new seeded shuffle: some deal finds it.
        """
        limit = self.rules.face_up_wild_limit
        wild = self.cards.wild
        if row_is_legal(self.face_up, wild, limit):
            return
        row = Counter(c for c in self.face_up if c is not None)
        pool = Counter(self.deck) + Counter(self.discard) + row
        if not legal_row_exists(pool, wild, len(self.face_up), limit):
            return
        while not row_is_legal(self.face_up, wild, limit):
            self.discard.extend(c for c in self.face_up if c is not None)
            self.face_up = [self._take_from_deck() for _ in range(len(self.face_up))]

    def _refill(self) -> None:
        self.face_up = [c if c is not None else self._take_from_deck() for c in self.face_up]
        self._check_face_up()

    def _to_discard(self, cards: Sequence[C]) -> None:
        """Cards paid (or turned up for a tunnel) go to the discards. A face-up row with empty
        slots (the draw pile and the discards had run out) is refilled from them at once, and
        a row stuck with too many wild cards (too few other cards to redeal) is checked again:
        both with the wild-card redeal."""
        self.discard.extend(cards)
        if not cards:
            return
        if any(c is None for c in self.face_up):
            self._refill()
        else:
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
        self._check_pending(action)
        if actor.offered and not isinstance(action, KeepTickets):
            raise IllegalActionError(
                "first choose which of the drawn tickets to keep", rule="tickets-pending"
            )
        if self.cards_drawn and not isinstance(action, DrawDeck | FaceUpDraw):
            raise IllegalActionError(
                f"after drawing one {self.CARD_NOUN} the turn is spent drawing the second",
                rule="one-action-per-turn",
            )
        name = next((self.HANDLERS[t] for t in type(action).__mro__ if t in self.HANDLERS), None)
        if name is None:
            raise IllegalActionError(
                self.NOT_SIMULATED.format(type=action.TYPE), rule="not-in-simulation"
            )
        handler: Callable[[P, Any], None] = getattr(self, name)
        handler(actor, action)

    def _check_pending(self, action: Action) -> None:
        """Refuse ``action`` while something else must be settled first (a tunnel)."""

    def _keep_initial(self, p: P, action: KeepTickets) -> None:
        raise NotImplementedError

    def _kept_first(self, p: P, chosen: list[str]) -> None:
        p.tickets.extend(chosen)
        p.offered = []
        p.ready = True
        if all(q.ready for q in self.players):
            self.phase = Phase.PLAYING

    def _check_chosen(self, p: P, tickets: Sequence[str]) -> list[str]:
        if len(set(tickets)) != len(tickets):
            raise IllegalActionError("a ticket is named twice", rule="ticket-twice")
        for t in tickets:
            if t not in p.offered:
                raise IllegalActionError(
                    f"{t} is not among the tickets offered to {p.color}", rule="ticket-not-offered"
                )
        return list(tickets)

    def _draw_deck(self, p: P, action: DrawDeck) -> None:
        if not self.deck and not self.discard:
            raise IllegalActionError("the draw pile and the discards are empty", rule="no-cards")
        card = self._take_from_deck()
        assert card is not None
        p.hand[card] += 1
        self._after_draw()

    def _draw_face_up(self, p: P, action: FaceUpDraw[C]) -> None:
        card = action.card
        if card not in self.face_up:
            raise IllegalActionError(f"no {card.value} card is face up", rule="not-face-up")
        wild = self.cards.wild
        if card is wild and self.cards_drawn:
            raise IllegalActionError(
                f"a face-up {wild.value} cannot be taken as the second card",
                rule=f"second-{wild.value}",
            )
        self.face_up[self.face_up.index(card)] = None
        p.hand[card] += 1
        self._refill()
        if card is wild:
            self._end_turn()  # a face-up wild card is the whole draw
        else:
            self._after_draw()

    def _route(self, route_id: str) -> R:
        return lookup_route(self.map.route, route_id)

    def _after_draw(self) -> None:
        self.cards_drawn += 1
        if self.cards_drawn >= 2 or not self.can_draw_card(second=True):
            self._end_turn()

    def _pay(
        self,
        p: P,
        action: RouteClaim[C],
        route: PaidRoute,
        check: Callable[[list[C]], object],
    ) -> list[C]:
        """Check and take from ``p``'s hand the cards ``action`` pays ``route`` with."""
        if action.cards is None:
            raise IllegalActionError(
                "a claim must say which cards pay for it", rule="no-cards-given"
            )
        cards = list(action.cards)
        check(cards)
        self._take_cards(p, cards)
        return cards

    def _take_cards(self, p: P, cards: list[C]) -> None:
        if not has_cards(p.hand, cards):
            raise IllegalActionError(f"{p.color} does not hold those cards", rule="not-in-hand")
        p.hand.subtract(cards)
        p.hand += Counter()  # drop zero counts

    def _place_route(self, p: P, route_id: str, length: int, points: int) -> None:
        self.route_owner[route_id] = p.color
        p.routes.append(route_id)
        p.pieces -= length
        p.score += points

    def _draw_tickets(self, p: P, action: DrawTickets) -> None:
        if not self.ticket_deck:
            raise IllegalActionError("the ticket deck is empty", rule="no-tickets")
        n = min(self.rules.tickets_drawn, len(self.ticket_deck))
        p.offered = self.ticket_deck[:n]
        del self.ticket_deck[:n]

    def _keep_tickets(self, p: P, action: KeepTickets) -> None:
        if not p.offered:
            raise IllegalActionError("no tickets were drawn to choose from", rule="no-offer")
        chosen = self._check_chosen(p, action.tickets)
        check_draw_keep(chosen, len(p.offered), self.rules.tickets_draw_keep_min)
        self.ticket_deck.extend(t for t in p.offered if t not in chosen)
        p.tickets.extend(chosen)
        p.offered = []
        self._end_turn()

    def _pass(self, p: P, action: Pass) -> None:
        if self.can_draw_card() or self.ticket_deck or self._can_build(p):
            raise IllegalActionError(
                f"a player may pass only when no {self.CARD_NOUN} and no ticket can be drawn "
                "and nothing can be built",
                rule="pass",
                params={"color": p.color},
            )
        self._end_turn()

    def _can_build(self, p: P) -> bool:
        """Can ``p`` claim a route (or, in Europe, build a station) with the cards held?"""
        return False

    def _end_turn(self) -> None:
        if self._next_turn():
            self.phase = Phase.OVER
        self.cards_drawn = 0

    # --- JSON form --------------------------------------------------------------------
    def _turn_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase.value,
            "current": self.current,
            "turn": self.turn,
            "cards_drawn": self.cards_drawn,
            "final_trigger": self.final.trigger,
            "turns_left": self.final.turns_left,
            "players": [p.to_json() for p in self.players],
            "deck": cards_json(self.deck),
            "discard": cards_json(self.discard),
            "face_up": cards_json(self.face_up),
            "ticket_deck": list(self.ticket_deck),
        }

    def _rng_json(self) -> list[Any]:
        version, internal, gauss = self.rng.getstate()
        return [version, list(internal), gauss]

    def _load_turn(self, data: Mapping[str, Any]) -> None:
        """The inverse of :meth:`_turn_json` (but ``players``, read first) and ``rng``."""
        card = self.cards.kind
        self.phase = Phase(data["phase"])
        self.current = int(data["current"])
        self.turn = int(data["turn"])
        self.cards_drawn = int(data["cards_drawn"])
        self.final = FinalRound(data["final_trigger"], data["turns_left"])
        self.deck = [card(c) for c in data["deck"]]
        self.discard = [card(c) for c in data["discard"]]
        self.face_up = [None if c is None else card(c) for c in data["face_up"]]
        self.ticket_deck = list(data["ticket_deck"])

    def _load_rng(self, data: Mapping[str, Any]) -> None:
        version, internal, gauss = data["rng"]
        self.rng.setstate((version, tuple(internal), gauss))

    def copy(self) -> Self:
        """A deep copy that shares the (immutable) map and variant."""
        shared = (self.cards, self.rules, *self._shared())
        return copy.deepcopy(self, {id(x): x for x in shared})


G = TypeVar("G", bound=Simulation[Any, Any, Any])


def apply(game: G, action: Action) -> G:
    """Pure form: a new game with ``action`` applied (``game`` is not changed)."""
    new = game.copy()
    new.apply(action)
    return new
