"""The full London simulation: every card known, a seeded shuffle, every rule enforced.

``Game.apply(action)`` checks the action completely before changing anything, so an illegal
action (IllegalActionError, naming the rule) leaves the game exactly as it was. The machinery is
the core's :class:`~companion.core.simulation.Simulation`; London adds its deal (2 cards, 2
tickets from one deck), its ticket keeps and the face-up check after a claim.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.core.errors import IllegalActionError, NotationError
from companion.core.rules import route_open
from companion.core.seats import PiecesAlias
from companion.core.simulation import Phase, SimPlayer, Simulation, apply

from .actions import ClaimRoute, KeepTickets
from .board import LondonMap, Route
from .cards import LONDON_CARDS, Card
from .payment import check_route_payment, payment_options
from .rules import (
    check_first_keep,
    check_players,
    turn_rules,
)
from .scoring import LondonResults

__all__ = ["Game", "Phase", "PlayerState", "apply"]


@dataclass
class PlayerState(SimPlayer[Card]):
    pieces: int = 17
    buses = PiecesAlias()
    PIECES: ClassVar[str] = "buses"
    CARD: ClassVar[Callable[[str], Any]] = Card


class Game(LondonResults, Simulation[Card, PlayerState, Route]):
    """A complete game of Ticket to Ride: London with all hidden information."""

    map: LondonMap
    CARD_NOUN: ClassVar[str] = "card"
    NOT_SIMULATED: ClassVar[str] = "{type} is not an action of a simulated London game"

    def __init__(self, game_map: LondonMap, players: list[PlayerState]) -> None:
        super().__init__(game_map, LONDON_CARDS, turn_rules(game_map), players)

    # --- creation ---------------------------------------------------------------------
    @classmethod
    def new(cls, game_map: LondonMap, players: Sequence[tuple[str, str]], *, seed: int = 0) -> Game:
        """Shuffle, deal 2 cards each, turn up 5 and deal 2 tickets each.

        ``players`` is a sequence of (name, colour) in turn order.
        """
        check_players(game_map, players)
        m = game_map
        game = cls(
            m, [PlayerState(color=c, name=n or c, pieces=m.buses_per_player) for n, c in players]
        )
        game._deal(seed, LONDON_CARDS.deck(m.cards_per_color, m.bus_cards), m.hand_size, m.face_up)
        tickets = list(m.tickets)
        game.rng.shuffle(tickets)
        for p in game.players:
            n = min(m.tickets_dealt, len(tickets))
            p.offered, tickets = tickets[:n], tickets[n:]
        game.ticket_deck = tickets
        return game

    # --- queries ----------------------------------------------------------------------
    def all_tickets(self) -> Counter[str]:
        """Every ticket wherever it is (deck, hands, offers)."""
        total: Counter[str] = Counter(self.ticket_deck)
        for p in self.players:
            total.update(p.tickets)
            total.update(p.offered)
        return total

    # --- applying actions -------------------------------------------------------------
    def _keep_initial(self, p: PlayerState, action: KeepTickets) -> None:
        if p.ready:
            raise IllegalActionError(
                f"{p.color} already chose the first tickets", rule="setup-done"
            )
        chosen = self._check_chosen(p, action.tickets)
        check_first_keep(self.map, chosen, len(p.offered))
        # unkept first tickets go under the ticket deck
        self.ticket_deck.extend(t for t in p.offered if t not in chosen)
        self._kept_first(p, chosen)

    def _claim(self, p: PlayerState, action: ClaimRoute) -> None:
        route = self._route(action.route)
        self._check_claim(route, p)
        cards = self._pay(p, action, route, lambda c: check_route_payment(route, c))
        self._to_discard(cards)
        self._place_route(p, route.id, route.length, self.map.points_for(route))
        self._end_turn()

    def _can_build(self, p: PlayerState) -> bool:
        """A route ``p`` may claim and pay for (no pass then)."""
        n, closed_up_to = self.n_players, self.rules.doubles_closed_up_to
        return any(
            route.length <= p.buses
            and route_open(self.route_owner, route.id, route.twin, p.color, n, closed_up_to)
            and next(payment_options(route, p.hand), None) is not None
            for route in self.map.routes.values()
        )

    # --- JSON form --------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "simulation",
            "map": self.map.id,
            **self._turn_json(),
            "route_owner": dict(self.route_owner),
            "rng": self._rng_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], game_map: LondonMap) -> Game:
        try:
            if data["map"] != game_map.id:
                raise ValueError(f"a {data['map']} state, not {game_map.id}")
            game = cls(game_map, [PlayerState.from_json(p) for p in data["players"]])
            game._load_turn(data)
            game.route_owner = dict(data["route_owner"])
            game._load_rng(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"not a London simulation state: {exc}") from exc
        return game
