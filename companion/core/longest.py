"""The European Express: the longest continuous trail of one player's own trains.

A trail may revisit cities and close loops but never uses a route twice. The search is exact:
a depth-first search over trails with memoisation on (city, routes used). It starts only at
cities of odd degree: a longest trail cannot be extended, so it ends where every route at the
city is used; unless it is closed (then it covers an Eulerian component), both its ends have odd
degree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from .board import Route


@dataclass(frozen=True, slots=True)
class Trail:
    length: int
    routes: tuple[str, ...]  # in travel order
    start: str = ""  # the city the trail starts from


def _components(routes: list[Route]) -> list[list[Route]]:
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for r in routes:
        parent[find(r.a)] = find(r.b)
    groups: dict[str, list[Route]] = defaultdict(list)
    for r in routes:
        groups[find(r.a)].append(r)
    return list(groups.values())


def _euler_order(routes: list[Route]) -> tuple[str, ...]:
    """Hierholzer's algorithm: routes of an Eulerian component in travel order."""
    adj: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for i, r in enumerate(routes):
        adj[r.a].append((i, r.b))
        adj[r.b].append((i, r.a))
    used = [False] * len(routes)
    stack: list[tuple[str, int]] = [(routes[0].a, -1)]
    order: list[int] = []
    while stack:
        city, via = stack[-1]
        edges = adj[city]
        while edges and used[edges[-1][0]]:
            edges.pop()
        if edges:
            i, nxt = edges.pop()
            used[i] = True
            stack.append((nxt, i))
        else:
            stack.pop()
            if via >= 0:
                order.append(via)
    return tuple(routes[i].id for i in reversed(order))


def _component_trail(routes: list[Route]) -> Trail:
    total = sum(r.length for r in routes)
    degree: dict[str, int] = defaultdict(int)
    for r in routes:
        degree[r.a] += 1
        degree[r.b] += 1
    odd = sorted(c for c, d in degree.items() if d % 2)
    if not odd:
        return Trail(total, _euler_order(routes), routes[0].a)

    index = {c: i for i, c in enumerate(sorted(degree))}
    adj: list[list[tuple[int, int, int]]] = [[] for _ in index]
    for bit, r in enumerate(routes):
        a, b = index[r.a], index[r.b]
        adj[a].append((1 << bit, b, r.length))
        adj[b].append((1 << bit, a, r.length))
    memo: dict[tuple[int, int], int] = {}

    def best_from(city: int, used: int) -> int:
        key = (city, used)
        found = memo.get(key)
        if found is not None:
            return found
        best = 0
        for bit, nxt, length in adj[city]:
            if not used & bit:
                got = length + best_from(nxt, used | bit)
                if got > best:
                    best = got
        memo[key] = best
        return best

    best_len, best_start = -1, odd[0]
    for c in odd:
        got = best_from(index[c], 0)
        if got > best_len:
            best_len, best_start = got, c
            if got == total:
                break

    # Walk the memo back to recover one longest trail.
    path: list[str] = []
    city, used, remaining = index[best_start], 0, best_len
    while remaining > 0:
        for bit, nxt, length in adj[city]:
            if not used & bit and length + best_from(nxt, used | bit) == remaining:
                path.append(routes[bit.bit_length() - 1].id)
                city, used, remaining = nxt, used | bit, remaining - length
                break
        else:  # pragma: no cover - the memo is exact, so some route always matches
            raise AssertionError("longest-trail reconstruction failed")
    return Trail(best_len, tuple(path), best_start)


def longest_trail(routes: Iterable[Route]) -> Trail:
    """The longest trail (in trains) through ``routes``: its length and its routes in order."""
    best = Trail(0, ())
    for component in _components(list(routes)):
        if sum(r.length for r in component) <= best.length:
            continue
        found = _component_trail(component)
        if found.length > best.length:
            best = found
    return best
