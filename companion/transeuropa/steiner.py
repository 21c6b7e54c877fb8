"""The exact penalty: a minimum-cost Steiner tree on the lattice.

A player who has not connected their cities when the round ends loses the fewest track units
that would still connect them, "using all track on the board in the best way": links with
usable track cost 0, free plain links 1, free double links 2, and links the player may not use
(another player's coloured track) cannot be used at all.

Method: the usable built track is contracted first (union-find), so every remaining edge costs
1 or 2 and each group of cities already joined becomes one terminal. Then the Dreyfus-Wagner /
Erickson-Monma-Veinott dynamic programme over subsets of the terminals, rooted at one of
them: ``best[S][v]`` is the cheapest tree joining the terminals in S and node v; it is
built by merging two trees at v and then spreading along edges with Dijkstra. With at most five
terminals that is 16 subsets over ~210 nodes: exact, and a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import add

from .lattice import Lattice

INF = 1 << 30


@dataclass(frozen=True, slots=True)
class Connection:
    """The cheapest way to connect some nodes: its cost and the free links to build."""

    cost: int
    links: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"cost": self.cost, "links": list(self.links)}


def steiner_tree(
    n: int,
    edges: Sequence[tuple[int, int, int]],
    terminals: Iterable[int],
) -> tuple[int, list[int]]:
    """Minimum Steiner tree of ``terminals`` in a graph of nodes 0..n-1.

    ``edges`` are ``(u, v, cost)`` with cost >= 1. Returns the cost and the indices of the
    edges of one optimal tree; the cost is ``INF`` when the terminals cannot be connected.
    """
    terms = sorted(set(terminals))
    if len(terms) <= 1:
        return 0, []
    adj: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
    for i, (u, v, c) in enumerate(edges):
        if c < 1:
            raise ValueError("Steiner edges must cost at least 1 (contract free ones first)")
        adj[u].append((v, c, i))
        adj[v].append((u, c, i))

    root = terms[-1]
    others = terms[:-1]
    k = len(others)
    full = (1 << k) - 1
    best: list[list[int]] = [[]] * (full + 1)
    via: list[list[int]] = [[]] * (full + 1)  # edge index reaching v (-1: none)
    back: list[list[int]] = [[]] * (full + 1)  # node the edge came from

    for mask in range(1, full + 1):
        ve = [-1] * n
        vb = [-1] * n
        if mask & (mask - 1) == 0:
            dist = [INF] * n
            dist[others[mask.bit_length() - 1]] = 0
        else:
            dist = [INF] * n
            for a in _splits(mask):
                dist = list(map(min, dist, map(add, best[a], best[mask ^ a])))
        # Dijkstra with a bucket queue: every edge costs a small whole number
        buckets: list[list[int]] = []
        for v, d in enumerate(dist):
            if d < INF:
                while len(buckets) <= d:
                    buckets.append([])
                buckets[d].append(v)
        target = root if mask == full else -1
        d = 0
        reached = False
        while d < len(buckets) and not reached:
            for v in buckets[d]:  # costs are >= 1: only later buckets grow meanwhile
                if dist[v] != d:
                    continue
                if v == target:
                    reached = True
                    break
                for w, c, e in adj[v]:
                    nd = d + c
                    if nd < dist[w]:
                        dist[w] = nd
                        ve[w] = e
                        vb[w] = v
                        while len(buckets) <= nd:
                            buckets.append([])
                        buckets[nd].append(w)
            d += 1
        best[mask], via[mask], back[mask] = dist, ve, vb

    cost = best[full][root]
    if cost >= INF:
        return INF, []
    used: set[int] = set()
    stack = [(full, root)]
    while stack:
        mask, v = stack.pop()
        e = via[mask][v]
        if e >= 0:
            used.add(e)
            stack.append((mask, back[mask][v]))
        elif mask & (mask - 1):
            # the value came from merging two trees at v: find which two
            value = best[mask][v]
            a = next(a for a in _splits(mask) if best[a][v] + best[mask ^ a][v] == value)
            stack.append((a, v))
            stack.append((mask ^ a, v))
    return cost, sorted(used)


def _splits(mask: int) -> Iterator[int]:
    """Every proper part A of ``mask`` holding its lowest bit (so each split {A, mask^A} once)."""
    low = mask & -mask
    rest = mask ^ low
    sub = rest
    while True:
        a = sub | low
        if a != mask:
            yield a
        if sub == 0:
            return
        sub = (sub - 1) & rest


class _UnionFind:
    def __init__(self, items: Iterable[str]) -> None:
        self.parent = {x: x for x in items}

    def find(self, x: str) -> str:
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def connection(
    lattice: Lattice,
    nodes: Iterable[str],
    built: Collection[str] | Mapping[str, object] = (),
    blocked: Collection[str] | Mapping[str, object] = (),
) -> Connection:
    """The cheapest set of free links that, with the ``built`` links, joins all ``nodes``.

    ``built``: link ids with track the player may use (cost 0). ``blocked``: link ids the player
    may not use (another player's coloured track). Every other link is free at its cost.
    Returns cost ``INF`` (and no links) when blocked links make a connection impossible.
    """
    uf = _UnionFind(lattice.nodes)
    for lid in built:
        link = lattice.links[lid]
        uf.union(link.a, link.b)
    index: dict[str, int] = {}
    for node in lattice.nodes:
        r = uf.find(node)
        if r not in index:
            index[r] = len(index)
    terminals = {index[uf.find(n)] for n in nodes}
    if len(terminals) <= 1:
        return Connection(0, ())
    cheapest: dict[tuple[int, int], tuple[int, str]] = {}
    for lid, link in lattice.links.items():
        if lid in built or lid in blocked:
            continue
        u, v = index[uf.find(link.a)], index[uf.find(link.b)]
        if u == v:
            continue
        key = (u, v) if u < v else (v, u)
        old = cheapest.get(key)
        if old is None or (link.cost, lid) < old:
            cheapest[key] = (link.cost, lid)
    keys = sorted(cheapest)
    edges = [(u, v, cheapest[(u, v)][0]) for u, v in keys]
    cost, used = steiner_tree(len(index), edges, terminals)
    if cost >= INF:
        return Connection(INF, ())
    return Connection(cost, tuple(sorted(cheapest[keys[i]][1] for i in used)))
