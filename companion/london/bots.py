"""Seeded London players that make legal moves: for property tests, benchmarks and demos."""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator

from companion.core.errors import IllegalActionError

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
from .cards import BUS
from .game import Game, Phase
from .payment import payment_options
from .rules import check_buses, check_route_free

PLAYER_ORDER = ("blue", "red", "green", "yellow")


def claimable_routes(game: Game) -> Iterator[ClaimRoute]:
    """One claim (the payment with the fewest buses) per route the current player can take."""
    p = game.current_player
    for route in game.map.routes.values():
        try:
            check_route_free(game.map, game.route_owner, route, p.color, game.n_players)
            check_buses(route, p.buses)
        except IllegalActionError:
            continue
        for cards in payment_options(route, p.hand):
            yield ClaimRoute(p.color, route.id, tuple(cards))
            break


def legal_moves(game: Game) -> list[Action]:
    """Some legal actions for whoever must act now (never empty while the game goes on)."""
    if game.phase is Phase.OVER:
        return []
    if game.phase is Phase.SETUP:
        for p in game.players:
            if not p.ready:
                return [
                    KeepTickets(p.color, (p.offered[0],)),
                    KeepTickets(p.color, tuple(p.offered)),
                ]
        return []
    p = game.current_player
    if p.offered:
        return [KeepTickets(p.color, (p.offered[0],)), KeepTickets(p.color, tuple(p.offered))]
    moves: list[Action] = []
    if game.deck or game.discard:
        moves.append(DrawDeck(p.color))
    for card in dict.fromkeys(c for c in game.face_up if c is not None):
        if not (game.cards_drawn and card is BUS):
            moves.append(DrawFaceUp(p.color, card))
    if game.cards_drawn:
        return moves
    moves.extend(claimable_routes(game))
    if game.ticket_deck:
        moves.append(DrawTickets(p.color))
    if not moves:
        moves.append(Pass(p.color))
    return moves


class RandomBot:
    """Mostly claims what it can, else draws cards; now and then draws tickets."""

    def __init__(self, seed: int = 0, claim_bias: float = 0.7, ticket_rate: float = 0.06) -> None:
        self.rng = random.Random(seed)
        self.claim_bias = claim_bias
        self.ticket_rate = ticket_rate

    def choose(self, game: Game) -> Action:
        moves = legal_moves(game)
        if not moves:
            raise IllegalActionError("the game is over", rule="game-over")
        if isinstance(moves[0], KeepTickets):
            return self.rng.choice(moves)
        claims = [m for m in moves if isinstance(m, ClaimRoute)]
        if claims and self.rng.random() < self.claim_bias:
            return self.rng.choice(claims)
        tickets = [m for m in moves if isinstance(m, DrawTickets)]
        if tickets and self.rng.random() < self.ticket_rate:
            return tickets[0]
        draws = [m for m in moves if isinstance(m, DrawDeck | DrawFaceUp)]
        if draws:
            return self.rng.choice(draws)
        return self.rng.choice(moves)


class TicketBot:
    """Plays for its tickets: claims the free routes on the cheapest path between each ticket's
    locations, draws the colours those routes need, and keeps the shorter offers."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def _needed_routes(self, game: Game, color: str) -> list[Route]:
        m = game.map
        usable: list[tuple[Route, int]] = []
        for r in m.routes.values():
            owner = game.route_owner.get(r.id)
            if owner == color:
                usable.append((r, 0))
            elif owner is None:
                try:
                    check_route_free(m, game.route_owner, r, color, game.n_players)
                except IllegalActionError:
                    continue
                usable.append((r, r.length))
        needed: dict[str, Route] = {}
        for tid in game.player(color).tickets:
            t = m.tickets[tid]
            for r in _cheapest_path(usable, t.a, t.b) or []:
                if game.route_owner.get(r.id) is None:
                    needed[r.id] = r
        return sorted(needed.values(), key=lambda r: (-r.length, r.id))

    def choose(self, game: Game) -> Action:
        moves = legal_moves(game)
        if not moves:
            raise IllegalActionError("the game is over", rule="game-over")
        if isinstance(moves[0], KeepTickets):
            return min(
                (m for m in moves if isinstance(m, KeepTickets)), key=lambda m: len(m.tickets)
            )
        p = game.current_player
        claims = {m.route: m for m in moves if isinstance(m, ClaimRoute)}
        needed = self._needed_routes(game, p.color) if not game.cards_drawn else []
        for r in needed:
            if r.id in claims:
                return claims[r.id]
        if not game.cards_drawn:
            if not needed and claims and (p.buses < 8 or not game.ticket_deck):
                return max(
                    claims.values(), key=lambda c: (game.map.routes[c.route].length, c.route)
                )
            if not needed and game.ticket_deck and p.buses >= 8 and len(p.tickets) < 5:
                return DrawTickets(p.color)
        wanted = {r.color for r in needed if r.color is not None}
        for m in moves:
            if isinstance(m, DrawFaceUp) and m.card in wanted:
                return m
        for m in moves:
            if isinstance(m, DrawDeck):
                return m
        if claims and not game.cards_drawn:
            return max(claims.values(), key=lambda c: (game.map.routes[c.route].length, c.route))
        return self.rng.choice(moves)


def _cheapest_path(usable: list[tuple[Route, int]], start: str, goal: str) -> list[Route] | None:
    """Dijkstra over routes with the given costs (own routes cost 0)."""
    adj: dict[str, list[tuple[str, Route, int]]] = {}
    for r, cost in usable:
        adj.setdefault(r.a, []).append((r.b, r, cost))
        adj.setdefault(r.b, []).append((r.a, r, cost))
    best: dict[str, int] = {start: 0}
    prev: dict[str, tuple[str, Route]] = {}
    heap: list[tuple[int, str]] = [(0, start)]
    while heap:
        d, here = heapq.heappop(heap)
        if here == goal:
            out: list[Route] = []
            while here != start:
                here, route = prev[here]
                out.append(route)
            return out
        if d > best.get(here, 1 << 30):
            continue
        for nxt, route, cost in adj.get(here, ()):
            nd = d + cost
            if nd < best.get(nxt, 1 << 30):
                best[nxt] = nd
                prev[nxt] = (here, route)
                heapq.heappush(heap, (nd, nxt))
    return None


def play_random_game(
    game_map: LondonMap,
    n_players: int = 4,
    *,
    seed: int = 0,
    max_actions: int = 3000,
    bot: RandomBot | TicketBot | None = None,
) -> tuple[Game, list[Action]]:
    """Play a whole seeded London game with bots (RandomBot unless told). Returns the game and
    every action applied."""
    colors = PLAYER_ORDER[:n_players]
    game = Game.new(game_map, [(c.title(), c) for c in colors], seed=seed)
    bot = bot or RandomBot(seed)
    actions: list[Action] = []
    while not game.over and len(actions) < max_actions:
        action = bot.choose(game)
        game.apply(action)
        actions.append(action)
    return game, actions
