"""Networks of routes, shared by every board: union-find, fewest-routes and cheapest paths.

Routes are anything with an ``id``, two ends ``a`` and ``b``, a ``length`` and a ``twin`` (a
Europe or a London route); the functions keep the route type they are given.
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, TypeVar


class BoardRoute(Protocol):
    """What every check of a route needs to know of it (a Europe or a London route): its id and
    its length; :class:`Link` and ``payment.PaidRoute`` add what they need."""

    @property
    def id(self) -> str: ...

    @property
    def length(self) -> int: ...


class Link(BoardRoute, Protocol):
    """A route as the network functions see it: its two ends and its twin besides."""

    @property
    def a(self) -> str: ...

    @property
    def b(self) -> str: ...

    @property
    def twin(self) -> str | None: ...


R = TypeVar("R", bound=Link)

Graph = Mapping[str, list[tuple[str, R]]]


class Networks:
    """Connected networks of one player's own routes (union-find over cities/locations)."""

    def __init__(self, routes: Iterable[Link]) -> None:
        self.parent: dict[str, str] = {}
        for r in routes:
            self.union(r.a, r.b)

    def find(self, x: str) -> str:
        parent = self.parent
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while x != root:
            nxt = parent.get(x, x)
            parent[x] = root
            x = nxt
        return root

    def union(self, a: str, b: str) -> None:
        self.parent.setdefault(a, a)
        self.parent.setdefault(b, b)
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def joined(self, a: str, b: str) -> bool:
        """True when own routes join ``a`` and ``b`` (a place is joined to itself only if an
        own route touches it)."""
        if a not in self.parent or b not in self.parent:
            return False
        return self.find(a) == self.find(b)


def route_graph(routes: Iterable[R]) -> dict[str, list[tuple[str, R]]]:
    """Adjacency lists: for each end, (the other end, the route) in the order given."""
    graph: dict[str, list[tuple[str, R]]] = defaultdict(list)
    for r in routes:
        graph[r.a].append((r.b, r))
        graph[r.b].append((r.a, r))
    return graph


def shortest_path(graph: Graph[R], start: str, goal: str) -> tuple[str, ...]:
    """Ids of the fewest routes joining start to goal in ``graph`` (breadth first); () if none."""
    if start == goal:
        return ()
    prev: dict[str, tuple[str, R]] = {}
    seen = {start}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for nxt, route in graph.get(here, ()):
            if nxt in seen:
                continue
            seen.add(nxt)
            prev[nxt] = (here, route)
            if nxt == goal:
                out: list[str] = []
                while nxt != start:
                    here, route = prev[nxt]
                    out.append(route.id)
                    nxt = here
                return tuple(reversed(out))
            queue.append(nxt)
    return ()


def cheapest_path(usable: Sequence[tuple[R, int]], start: str, goal: str) -> list[R] | None:
    """Dijkstra over routes with the given costs (own routes cost 0); the routes goal first."""
    adj: dict[str, list[tuple[str, R, int]]] = {}
    for r, cost in usable:
        adj.setdefault(r.a, []).append((r.b, r, cost))
        adj.setdefault(r.b, []).append((r.a, r, cost))
    best: dict[str, int] = {start: 0}
    prev: dict[str, tuple[str, R]] = {}
    heap: list[tuple[int, str]] = [(0, start)]
    while heap:
        d, here = heapq.heappop(heap)
        if here == goal:
            out: list[R] = []
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
