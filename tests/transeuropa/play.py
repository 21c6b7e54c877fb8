"""Seeded players for property tests: random legal moves, mostly along their cheapest tree."""

from __future__ import annotations

import random

from companion.transeuropa import EndTurn, PlaceStart, Round
from companion.transeuropa.actions import Action, PlaceTrack


def choose(r: Round, rng: random.Random, greed: float = 0.8) -> Action:
    p = r.current_player
    if r.phase == "start":
        if rng.random() < 0.5:
            return PlaceStart(p.color, r.lattice.cities[rng.choice(p.cities)].node)
        return PlaceStart(p.color, rng.choice(sorted(r.lattice.nodes)))
    if r.placed and rng.random() < 0.25:
        return EndTurn(p.color)
    moves = r.legal_placements(p.color)
    if rng.random() < greed:
        want = set(r.penalty(p.color).links) - set(r.tracks)
        good = [m for m in moves if m.link in want]
        if good:
            return rng.choice(good)
    move = rng.choice(moves)
    if move.colored and rng.random() < 0.7:
        return PlaceTrack(p.color, move.link)
    return move
