"""Seeded players that make legal moves: for property tests, benchmarks and the demo."""

from __future__ import annotations

import random
from collections.abc import Iterator

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
from .board import GameMap, Route
from .cards import LOCO
from .errors import IllegalActionError
from .game import Game, Phase
from .payment import payment_options, station_options, surcharge_options
from .rules import check_route_free, check_station_free, check_trains


def claimable_routes(game: Game) -> Iterator[ClaimRoute]:
    """One claim (the payment with the fewest locomotives) per route the current player can take."""
    p = game.current_player
    for route in game.map.routes.values():
        try:
            check_route_free(game.map, game.route_owner, route, p.color, game.n_players)
            check_trains(route, p.trains)
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
        moves: list[Action] = []
        for p in game.players:
            if not p.ready:
                s = game.variant.setup
                regular = [t for t in p.offered if not game.map.tickets[t].long]
                longs = [t for t in p.offered if game.map.tickets[t].long]
                keep = longs[: s.long_keep_max] if s.long_keep_max is not None else longs
                keep = keep + regular[: max(0, s.keep_min - len(keep))]
                moves.append(KeepTickets(p.color, tuple(keep)))
                moves.append(
                    KeepTickets(p.color, tuple(keep + [t for t in regular if t not in keep]))
                )
                return moves
        return moves
    p = game.current_player
    if game.tunnel is not None:
        pays: list[Action] = [
            PayTunnel(p.color, tuple(c)) for c in surcharge_options(game.tunnel.surcharge, p.hand)
        ]
        return [*pays[:1], WithdrawTunnel(p.color)]
    if p.offered:
        return [KeepTickets(p.color, (p.offered[0],)), KeepTickets(p.color, tuple(p.offered))]
    moves = []
    if game.deck or game.discard:
        moves.append(DrawDeck(p.color))
    for card in dict.fromkeys(c for c in game.face_up if c is not None):
        if not (game.cards_drawn and card is LOCO):
            moves.append(DrawFaceUp(p.color, card))
    if game.cards_drawn:
        return moves
    moves.extend(claimable_routes(game))
    if len(p.stations) < game.map.stations_per_player:
        options = next(station_options(len(p.stations), p.hand, game.map.station_costs), None)
        if options is not None:
            for city in game.map.cities:
                try:
                    check_station_free(game.map, game.station_owner, city, len(p.stations))
                except IllegalActionError:
                    continue
                moves.append(BuildStation(p.color, city, tuple(options)))
    if game.ticket_deck:
        moves.append(DrawTickets(p.color))
    if not moves:
        moves.append(Pass(p.color))
    return moves


class RandomBot:
    """Mostly claims what it can, else draws; now and then takes tickets or builds a station."""

    def __init__(self, seed: int = 0, claim_bias: float = 0.7) -> None:
        self.rng = random.Random(seed)
        self.claim_bias = claim_bias

    def choose(self, game: Game) -> Action:
        moves = legal_moves(game)
        if not moves:
            raise IllegalActionError("the game is over", rule="game-over")
        claims = [m for m in moves if isinstance(m, ClaimRoute)]
        if claims and self.rng.random() < self.claim_bias:
            return self.rng.choice(claims)
        pays = [m for m in moves if isinstance(m, PayTunnel)]
        if pays and self.rng.random() < 0.8:
            return pays[0]
        stations = [m for m in moves if isinstance(m, BuildStation)]
        if stations and self.rng.random() < 0.03:
            return self.rng.choice(stations)
        tickets = [m for m in moves if isinstance(m, DrawTickets)]
        if tickets and self.rng.random() < 0.04:
            return tickets[0]
        draws = [m for m in moves if isinstance(m, DrawDeck | DrawFaceUp)]
        if draws:
            return self.rng.choice(draws)
        return self.rng.choice(moves)


def play_random_game(
    game_map: GameMap,
    n_players: int = 4,
    *,
    seed: int = 0,
    variant: str = "europe",
    max_actions: int = 5000,
    bot: RandomBot | TicketBot | None = None,
) -> tuple[Game, list[Action]]:
    """Play a whole seeded game with bots (RandomBot unless told). Returns the game and every
    action applied."""
    colors = ["blue", "red", "green", "yellow", "black"][:n_players]
    game = Game.new(game_map, [(c.title(), c) for c in colors], variant=variant, seed=seed)
    bot = bot or RandomBot(seed)
    actions: list[Action] = []
    while not game.over and len(actions) < max_actions:
        action = bot.choose(game)
        game.apply(action)
        actions.append(action)
    return game, actions


class TicketBot:
    """Plays for its tickets: claims the free routes on the cheapest path between each ticket's
    cities, draws the colours those routes need, and keeps the shortest tickets it is offered.
    Good enough to make a demo game look like a real one."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def _needed_routes(self, game: Game, color: str) -> list[Route]:
        """Free routes on the cheapest paths for the player's unfinished tickets."""
        m = game.map
        p = game.player(color)
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
        for tid in p.tickets:
            t = m.tickets[tid]
            path = _cheapest_path(usable, t.a, t.b)
            for r in path or []:
                if game.route_owner.get(r.id) is None:
                    needed[r.id] = r
        return sorted(needed.values(), key=lambda r: (-r.length, r.id))

    def choose(self, game: Game) -> Action:
        moves = legal_moves(game)
        if not moves:
            raise IllegalActionError("the game is over", rule="game-over")
        if game.phase is Phase.SETUP or isinstance(moves[0], KeepTickets):
            return min(
                (m for m in moves if isinstance(m, KeepTickets)), key=lambda m: len(m.tickets)
            )
        pays = [m for m in moves if isinstance(m, PayTunnel)]
        if pays:
            return pays[0]
        if any(isinstance(m, WithdrawTunnel) for m in moves):
            return next(m for m in moves if isinstance(m, WithdrawTunnel))
        p = game.current_player
        claims = {m.route: m for m in moves if isinstance(m, ClaimRoute)}
        needed = self._needed_routes(game, p.color) if not game.cards_drawn else []
        for r in needed:
            if r.id in claims:
                return claims[r.id]
        if not game.cards_drawn:
            if not needed and claims and (p.trains < 20 or not game.ticket_deck):
                best = max(
                    claims.values(), key=lambda c: (game.map.routes[c.route].length, c.route)
                )
                return best
            if not needed and game.ticket_deck and p.trains >= 20 and len(p.tickets) < 6:
                return DrawTickets(p.color)
        wanted = {r.color for r in needed if r.color is not None}
        for m in moves:
            if isinstance(m, DrawFaceUp) and m.card in wanted:
                return m
        draws = [m for m in moves if isinstance(m, DrawDeck)]
        if draws:
            return draws[0]
        if claims and not game.cards_drawn:
            return max(claims.values(), key=lambda c: (game.map.routes[c.route].length, c.route))
        return self.rng.choice(moves)


def _cheapest_path(usable: list[tuple[Route, int]], start: str, goal: str) -> list[Route] | None:
    """Dijkstra over routes with the given costs (own routes cost 0)."""
    import heapq

    adj: dict[str, list[tuple[str, Route, int]]] = {}
    for r, cost in usable:
        adj.setdefault(r.a, []).append((r.b, r, cost))
        adj.setdefault(r.b, []).append((r.a, r, cost))
    best: dict[str, int] = {start: 0}
    prev: dict[str, tuple[str, Route]] = {}
    heap: list[tuple[int, str]] = [(0, start)]
    while heap:
        d, city = heapq.heappop(heap)
        if city == goal:
            out: list[Route] = []
            while city != start:
                city, route = prev[city]
                out.append(route)
            return out
        if d > best.get(city, 1 << 30):
            continue
        for nxt, route, cost in adj.get(city, ()):
            nd = d + cost
            if nd < best.get(nxt, 1 << 30):
                best[nxt] = nd
                prev[nxt] = (city, route)
                heapq.heappush(heap, (nd, nxt))
    return None
