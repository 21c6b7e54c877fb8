"""What every board's seeded bots share: the moves of a turn, the claims a hand can pay, the
random bot, the ticket bot and the play-out loop. Europe (:mod:`companion.core.bots`) adds
tunnels, stations and long tickets; London (:mod:`companion.london.bots`) its own numbers."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar, Generic, TypeVar

from .actions import (
    Action,
    DrawDeck,
    DrawTickets,
    FaceUpDraw,
    KeepTickets,
    Pass,
    RouteClaim,
)
from .cards import TrainCard
from .errors import IllegalActionError
from .networks import cheapest_path
from .rules import route_open
from .simulation import Simulation

C = TypeVar("C", bound=TrainCard)
G = TypeVar("G", bound=Simulation[Any, Any, Any])
A = TypeVar("A", bound=Action)


def first_claims(
    game: Simulation[C, Any, Any],
    options: Callable[[Any], Iterator[list[C]]],
    claim: Callable[[str, str, tuple[C, ...]], A],
) -> Iterator[A]:
    """One claim (the first payment ``options`` gives) per route the current player may take:
    free, not closed by its double (see :func:`route_open`), enough pieces."""
    p = game.current_player
    owners = game.route_owner
    color = p.color
    n = game.n_players
    left = p.pieces
    closed_up_to = game.rules.doubles_closed_up_to
    for route in game.map.routes.values():
        if route.length > left or not route_open(
            owners, route.id, route.twin, color, n, closed_up_to
        ):
            continue
        for cards in options(route):
            yield claim(color, route.id, tuple(cards))
            break


def turn_moves(
    game: Simulation[C, Any, Any],
    draw_face: Callable[[str, C], Action],
    claims: Callable[[], Iterable[Action]],
    others: Callable[[], Iterable[Action]] = tuple,
) -> list[Action]:
    """Some legal actions of the current player's turn once tickets are settled: draws (no
    face-up wild card as the second), then, before any draw, ``claims``, ``others`` (stations)
    and a ticket draw; a pass when nothing else is left."""
    p = game.current_player
    moves: list[Action] = []
    if game.deck or game.discard:
        moves.append(DrawDeck(p.color))
    wild = game.cards.wild
    for card in dict.fromkeys(c for c in game.face_up if c is not None):
        if not (game.cards_drawn and card is wild):
            moves.append(draw_face(p.color, card))
    if game.cards_drawn:
        return moves
    moves.extend(claims())
    moves.extend(others())
    if game.ticket_deck:
        moves.append(DrawTickets(p.color))
    if not moves:
        moves.append(Pass(p.color))
    return moves


def keep_offers(color: str, offered: list[str]) -> list[Action]:
    """Keep the first ticket offered, or all of them."""
    return [KeepTickets(color, (offered[0],)), KeepTickets(color, tuple(offered))]


class RandomBot(Generic[G]):
    """Mostly claims what it can, else draws cards; now and then draws tickets."""

    def __init__(self, seed: int = 0, claim_bias: float = 0.7, ticket_rate: float = 0.04) -> None:
        self.rng = random.Random(seed)
        self.claim_bias = claim_bias
        self.ticket_rate = ticket_rate

    def moves(self, game: G) -> list[Action]:
        raise NotImplementedError

    def _special(self, moves: list[Action]) -> Action | None:
        """The board's own choices between claims and tickets (tunnels, stations)."""
        return None

    def choose(self, game: G) -> Action:
        moves = self.moves(game)
        if not moves:
            raise IllegalActionError("the game is over", rule="game-over")
        claims = [m for m in moves if isinstance(m, RouteClaim)]
        if claims and self.rng.random() < self.claim_bias:
            return self.rng.choice(claims)
        special = self._special(moves)
        if special is not None:
            return special
        tickets = [m for m in moves if isinstance(m, DrawTickets)]
        if tickets and self.rng.random() < self.ticket_rate:
            return tickets[0]
        draws = [m for m in moves if isinstance(m, DrawDeck | FaceUpDraw)]
        if draws:
            return self.rng.choice(draws)
        return self.rng.choice(moves)


class TicketBot(Generic[G]):
    """Plays for its tickets: claims the free routes on the cheapest path between each ticket's
    ends, draws the colours those routes need, and keeps the shortest tickets it is offered.
    With fewer than LOW_PIECES trains/buses and nothing needed it claims the longest route; it
    draws more tickets while it holds fewer than MAX_TICKETS."""

    LOW_PIECES: ClassVar[int] = 20
    MAX_TICKETS: ClassVar[int] = 6

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def moves(self, game: G) -> list[Action]:
        raise NotImplementedError

    def _settle(self, moves: list[Action]) -> Action | None:
        """A pending step of the turn to finish first (a tunnel)."""
        return None

    def _needed_routes(self, game: G, color: str) -> list[Any]:
        """Free routes on the cheapest paths for the player's unfinished tickets."""
        m = game.map
        owners = game.route_owner
        closed_up_to = game.rules.doubles_closed_up_to
        usable: list[tuple[Any, int]] = []
        for r in m.routes.values():
            owner = owners.get(r.id)
            if owner == color:
                usable.append((r, 0))
            elif owner is None and route_open(
                owners, r.id, r.twin, color, game.n_players, closed_up_to
            ):
                usable.append((r, r.length))
        needed: dict[str, Any] = {}
        for tid in game.player(color).tickets:
            t = m.tickets[tid]
            for r in cheapest_path(usable, t.a, t.b) or []:
                if game.route_owner.get(r.id) is None:
                    needed[r.id] = r
        return sorted(needed.values(), key=lambda r: (-r.length, r.id))

    def choose(self, game: G) -> Action:
        moves = self.moves(game)
        if not moves:
            raise IllegalActionError("the game is over", rule="game-over")
        if isinstance(moves[0], KeepTickets):
            return min(
                (m for m in moves if isinstance(m, KeepTickets)), key=lambda m: len(m.tickets)
            )
        settle = self._settle(moves)
        if settle is not None:
            return settle
        p = game.current_player
        claims: dict[str, Action] = {m.route: m for m in moves if isinstance(m, RouteClaim)}
        needed = self._needed_routes(game, p.color) if not game.cards_drawn else []
        for r in needed:
            if r.id in claims:
                return claims[r.id]

        def longest() -> Action:
            return claims[max(claims, key=lambda rid: (game.map.routes[rid].length, rid))]

        if not game.cards_drawn:
            if not needed and claims and (p.pieces < self.LOW_PIECES or not game.ticket_deck):
                return longest()
            if (
                not needed
                and game.ticket_deck
                and p.pieces >= self.LOW_PIECES
                and len(p.tickets) < self.MAX_TICKETS
            ):
                return DrawTickets(p.color)
        wanted = {r.color for r in needed if r.color is not None}
        for m in moves:
            if isinstance(m, FaceUpDraw) and m.card in wanted:
                return m
        for m in moves:
            if isinstance(m, DrawDeck):
                return m
        if claims and not game.cards_drawn:
            return longest()
        return self.rng.choice(moves)


def play_out(game: G, bot: RandomBot[G] | TicketBot[G], max_actions: int) -> list[Action]:
    """Let ``bot`` play ``game`` to the end (or ``max_actions``); every action applied."""
    actions: list[Action] = []
    while not game.over and len(actions) < max_actions:
        action = bot.choose(game)
        game.apply(action)
        actions.append(action)
    return actions
