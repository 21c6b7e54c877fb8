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

    edges = _contract(routes)
    index = {c: i for i, c in enumerate(sorted({c for e in edges for c in (e.a, e.b)}))}
    adj: list[list[tuple[int, int, int, int]]] = [[] for _ in index]
    for i, e in enumerate(edges):
        a, b = index[e.a], index[e.b]
        adj[a].append((1 << i, b, e.length, i))
        if a != b:
            adj[b].append((1 << i, a, e.length, i))
    memo: dict[tuple[int, int], int] = {}

    def best_from(city: int, used: int) -> int:
        key = (city, used)
        found = memo.get(key)
        if found is not None:
            return found
        best = 0
        for bit, nxt, length, _ in adj[city]:
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

    # Walk the memo back to recover one longest trail, unfolding the contracted chains.
    path: list[str] = []
    names = sorted(index, key=lambda c: index[c])
    city, used, remaining = index[best_start], 0, best_len
    while remaining > 0:
        for bit, nxt, length, i in adj[city]:
            if not used & bit and length + best_from(nxt, used | bit) == remaining:
                e = edges[i]
                path.extend(e.routes if names[city] == e.a else reversed(e.routes))
                city, used, remaining = nxt, used | bit, remaining - length
                break
        else:  # pragma: no cover - the memo is exact, so some route always matches
            raise AssertionError("longest-trail reconstruction failed")
    return Trail(best_len, tuple(path), best_start)


@dataclass(frozen=True, slots=True)
class _Edge:
    a: str
    b: str
    length: int
    routes: tuple[str, ...]  # from a to b

    def reversed(self) -> _Edge:
        return _Edge(self.b, self.a, self.length, tuple(reversed(self.routes)))


def _contract(routes: list[Route]) -> list[_Edge]:
    """Merge the two routes at every city of degree 2 into one edge (a chain is walked whole).

    A trail that reaches such a city either goes on along the other route or ends there, and it
    can only end there if the other route is already used, so chains never branch: contracting
    them keeps every trail and its length, and makes the search much smaller.
    """
    edges: dict[int, _Edge] = {}
    at: dict[str, set[int]] = defaultdict(set)
    for i, r in enumerate(routes):
        edges[i] = _Edge(r.a, r.b, r.length, (r.id,))
        at[r.a].add(i)
        at[r.b].add(i)
    next_id = len(routes)
    changed = True
    while changed:
        changed = False
        for city in list(at):
            ids = at[city]
            if len(ids) != 2:
                continue
            i, j = sorted(ids)
            e1, e2 = edges[i], edges[j]
            if e1.a == e1.b or e2.a == e2.b:
                continue  # a loop: the city's degree counts it twice
            if e1.b != city:
                e1 = e1.reversed()
            if e2.a != city:
                e2 = e2.reversed()
            merged = _Edge(e1.a, e2.b, e1.length + e2.length, e1.routes + e2.routes)
            del edges[i], edges[j]
            del at[city]
            for end, old in ((e1.a, i), (e2.b, j)):
                at[end].discard(old)
            edges[next_id] = merged
            at[merged.a].add(next_id)
            at[merged.b].add(next_id)
            next_id += 1
            changed = True
    return list(edges.values())


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
