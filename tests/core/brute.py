"""An independent, deliberately naive re-implementation of final scoring, for cross-checks.

It shares nothing with companion.core.scoring/longest but the map facts: every trail is
enumerated, every combination of every borrowable route is tried, connectivity is a plain
graph search. Slow, simple, and obviously right.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from companion.core.board import GameMap, Route
from companion.core.scoring import PlayerEnd


def brute_longest(routes: Sequence[Route]) -> int:
    best = 0
    cities = {c for r in routes for c in (r.a, r.b)}

    def walk(city: str, used: frozenset[int], length: int) -> None:
        nonlocal best
        best = max(best, length)
        for i, r in enumerate(routes):
            if i not in used and city in (r.a, r.b):
                nxt = r.b if city == r.a else r.a
                walk(nxt, used | {i}, length + r.length)

    for c in cities:
        walk(c, frozenset(), 0)
    return best


def connected(routes: Sequence[Route], a: str, b: str) -> bool:
    seen, todo = {a}, [a]
    while todo:
        c = todo.pop()
        if c == b:
            return True
        for r in routes:
            if c in (r.a, r.b):
                n = r.b if c == r.a else r.a
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
    return a == b


def components(routes: Sequence[Route]) -> dict[str, int]:
    """Label every city touched by ``routes`` with the number of its connected component."""
    label: dict[str, int] = {}
    for start in [c for r in routes for c in (r.a, r.b)]:
        if start in label:
            continue
        n = len(label)
        label[start] = n
        todo = [start]
        while todo:
            c = todo.pop()
            for r in routes:
                if c in (r.a, r.b):
                    other = r.b if c == r.a else r.a
                    if other not in label:
                        label[other] = n
                        todo.append(other)
    return label


def brute_score(game_map: GameMap, players: Sequence[PlayerEnd]) -> list[dict[str, int]]:
    owner = {rid: p.color for p in players for rid in p.routes}
    out = []
    for p in players:
        own = [game_map.routes[r] for r in p.routes]
        options = []
        for city in p.stations:
            others = [
                r
                for r in game_map.routes.values()
                if city in (r.a, r.b) and owner.get(r.id) not in (None, p.color)
            ]
            options.append([None, *others])
        best: tuple[int, int] | None = None
        for combo in itertools.product(*options):
            net = own + [r for r in combo if r is not None]
            label = components(net)
            pts = cnt = 0
            for tid in p.tickets:
                t = game_map.tickets[tid]
                if t.a in label and label.get(t.a) == label.get(t.b):
                    pts += t.points
                    cnt += 1
                else:
                    pts -= t.points
            if best is None or (pts, cnt) > best:
                best = (pts, cnt)
        assert best is not None
        out.append(
            {
                "route_points": sum(game_map.route_points[r.length] for r in own),
                "ticket_points": best[0],
                "completed": best[1],
                "stations": len(p.stations),
                "longest": brute_longest(own),
            }
        )
    top = max(o["longest"] for o in out)
    for o in out:
        o["express"] = 10 if top > 0 and o["longest"] == top else 0
        o["total"] = o["route_points"] + o["ticket_points"] + 4 * (3 - o["stations"]) + o["express"]
    keys = [(-o["total"], -o["completed"], o["stations"], -o["express"]) for o in out]
    for o, k in zip(out, keys, strict=True):
        o["rank"] = 1 + sum(1 for other in keys if other < k)
    return out
