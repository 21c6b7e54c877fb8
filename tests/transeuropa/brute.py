"""Independent, deliberately naive answers for the Trans Europa penalty, for cross-checks.

Nothing here is shared with companion.transeuropa.steiner. Two oracles:

- :func:`brute_by_nodes`: the cheapest tree is a minimum spanning tree of the subgraph induced
  by the terminals plus the right set of extra nodes; try every set of extra nodes (Kruskal,
  built track at cost 0). Exact for any graph, exponential in the number of nodes.
- :func:`brute_by_links`: try every subset of the free links, cheapest first; the first one
  that joins the terminals (with the built track) wins. Exact, exponential in the free links.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

# an edge: (u, v, state) with state 0 = built (usable), 1 / 2 = free at that cost, -1 = blocked
Edge = tuple[str, str, int]


def _find(parent: dict[str, str], x: str) -> str:
    while parent[x] != x:
        x = parent[x]
    return x


def _joined(
    nodes: Sequence[str], edges: Sequence[tuple[str, str]], terminals: Sequence[str]
) -> bool:
    parent = {n: n for n in nodes}
    for u, v in edges:
        parent[_find(parent, u)] = _find(parent, v)
    return len({_find(parent, t) for t in terminals}) <= 1


def brute_by_nodes(
    nodes: Sequence[str], edges: Sequence[Edge], terminals: Sequence[str]
) -> int | None:
    terms = sorted(set(terminals))
    others = [n for n in nodes if n not in terms]
    usable = sorted((s, u, v) for u, v, s in edges if s >= 0)
    best: int | None = None
    for k in range(len(others) + 1):
        for extra in itertools.combinations(others, k):
            keep = set(terms) | set(extra)
            parent = {n: n for n in keep}
            cost = 0
            for s, u, v in usable:
                if u in keep and v in keep:
                    ru, rv = _find(parent, u), _find(parent, v)
                    if ru != rv:
                        parent[ru] = rv
                        cost += s
            if len({_find(parent, n) for n in keep}) == 1 and (best is None or cost < best):
                best = cost
    return best


def brute_by_links(
    nodes: Sequence[str], edges: Sequence[Edge], terminals: Sequence[str]
) -> int | None:
    built = [(u, v) for u, v, s in edges if s == 0]
    free = [(u, v, s) for u, v, s in edges if s > 0]
    best: int | None = None
    for k in range(len(free) + 1):
        for chosen in itertools.combinations(free, k):
            cost = sum(s for _, _, s in chosen)
            if best is not None and cost >= best:
                continue
            if _joined(nodes, built + [(u, v) for u, v, _ in chosen], terminals):
                best = cost
    return best


def random_patch(rng: random.Random, rows: int, cols: int) -> tuple[list[str], list[Edge]]:
    """A random patch of triangular lattice: node ids XXYY as on the real board, some links
    missing, costs 1 or 2, some links built, a few blocked."""
    nodes = []
    for y in range(rows):
        for c in range(cols):
            nodes.append(f"{2 * c + y % 2:02d}{y:02d}")
    pos = {(int(n[:2]), int(n[2:])): n for n in nodes}
    edges: list[Edge] = []
    for (x, y), n in pos.items():
        for dx, dy in ((2, 0), (1, 1), (-1, 1)):
            m = pos.get((x + dx, y + dy))
            if m is None or rng.random() < 0.15:
                continue
            r = rng.random()
            state = 0 if r < 0.2 else -1 if r < 0.25 else (2 if rng.random() < 0.3 else 1)
            edges.append((n, m, state))
    return nodes, edges
