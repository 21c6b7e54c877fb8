"""An independent, deliberately naive London final scorer, for cross-checks.

It shares nothing with companion.london.scoring but the map facts: connectivity is a plain
search over the list of the player's routes, every pair of a district's locations is checked
on its own, ranks are counted by comparing every pair of players. Slow, simple, obviously right.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.london.board import LondonMap, Route
from companion.london.scoring import PlayerEnd


def reachable(routes: Sequence[Route], start: str) -> set[str]:
    """Every location a walk along ``routes`` from ``start`` can reach (start only if touched)."""
    if not any(start in (r.a, r.b) for r in routes):
        return set()
    seen = {start}
    changed = True
    while changed:
        changed = False
        for r in routes:
            if (r.a in seen) != (r.b in seen):
                seen |= {r.a, r.b}
                changed = True
    return seen


def brute_score(game_map: LondonMap, players: Sequence[PlayerEnd]) -> list[dict[str, int]]:
    out = []
    for p in players:
        own = [game_map.routes[r] for r in p.routes]
        route_points = 0
        for r in own:
            route_points += game_map.route_points[r.length]
        ticket_points = completed = 0
        for tid in p.tickets:
            t = game_map.tickets[tid]
            if t.b in reachable(own, t.a):
                ticket_points += t.points
                completed += 1
            else:
                ticket_points -= t.points
        district_points = 0
        for d in game_map.districts:
            if all(b in reachable(own, a) for a in d.locations for b in d.locations if a != b):
                district_points += d.points
        out.append(
            {
                "route_points": route_points,
                "ticket_points": ticket_points,
                "completed": completed,
                "district_points": district_points,
                "total": route_points + ticket_points + district_points,
            }
        )
    for o in out:
        better = 0
        for other in out:
            if other["total"] > o["total"] or (
                other["total"] == o["total"] and other["completed"] > o["completed"]
            ):
                better += 1
        o["rank"] = 1 + better
    return out
