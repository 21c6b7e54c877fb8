"""The exact penalty against two independent brute forces, and on the real lattice."""

from __future__ import annotations

import random

import pytest

from companion.transeuropa.lattice import Lattice, Link, link_id, trans_europa
from companion.transeuropa.steiner import INF, connection, steiner_tree

from .brute import Edge, brute_by_links, brute_by_nodes, random_patch

LAT = trans_europa()


def patch_lattice(nodes: list[str], edges: list[Edge]) -> tuple[Lattice, set[str], set[str]]:
    links = {}
    at: dict[str, list[Link]] = {n: [] for n in nodes}
    built, blocked = set(), set()
    for u, v, s in edges:
        lid = link_id(u, v)
        link = Link(lid, min(u, v), max(u, v), 1 if s == 0 else max(s, 1))
        links[lid] = link
        at[u].append(link)
        at[v].append(link)
        if s == 0:
            built.add(lid)
        elif s < 0:
            blocked.add(lid)
    xy = {n: (int(n[:2]), int(n[2:])) for n in nodes}
    lat = Lattice(nodes=xy, links=links, cities={}, links_at={n: tuple(v) for n, v in at.items()})
    return lat, built, blocked


def check_witness(
    lat: Lattice,
    terms: list[str],
    built: set[str],
    blocked: set[str],
    cost: int,
    witness: tuple[str, ...],
) -> None:
    assert not set(witness) & (built | blocked), "the witness builds on an occupied link"
    assert sum(lat.links[w].cost for w in witness) == cost
    parent = {n: n for n in lat.nodes}

    def find(x: str) -> str:
        while parent[x] != x:
            x = parent[x]
        return x

    for lid in [*built, *witness]:
        link = lat.links[lid]
        parent[find(link.a)] = find(link.b)
    assert len({find(t) for t in terms}) == 1, "the witness does not join the cities"


@pytest.mark.parametrize("seed", range(300))
def test_matches_brute_force_on_small_lattices(seed: int) -> None:
    rng = random.Random(seed)
    rows, cols = rng.choice([(3, 4), (4, 3), (3, 5), (4, 4), (2, 6)])
    nodes, edges = random_patch(rng, rows, cols)
    k = rng.randint(1, min(6, len(nodes)))
    terms = rng.sample(nodes, k)
    lat, built, blocked = patch_lattice(nodes, edges)
    got = connection(lat, terms, built, blocked)
    want = brute_by_nodes(nodes, edges, terms)
    if want is None:
        assert got.cost == INF and got.links == ()
        return
    assert got.cost == want
    free = [e for e in edges if e[2] > 0]
    if len(free) <= 13:
        assert brute_by_links(nodes, edges, terms) == want
    check_witness(lat, terms, built, blocked, got.cost, got.links)


def test_the_two_brute_forces_agree() -> None:
    """The oracles themselves agree, so neither carries a shared mistake."""
    rng = random.Random(99)
    compared = 0
    while compared < 60:
        nodes, edges = random_patch(rng, 3, 3)
        if len([e for e in edges if e[2] > 0]) > 12:
            continue
        terms = rng.sample(nodes, rng.randint(2, 5))
        assert brute_by_links(nodes, edges, terms) == brute_by_nodes(nodes, edges, terms)
        compared += 1


def test_steiner_tree_small_graphs() -> None:
    # a star is cheaper than a path through the terminals
    edges = [(0, 3, 1), (1, 3, 1), (2, 3, 1), (0, 1, 2), (1, 2, 2)]
    cost, used = steiner_tree(4, edges, [0, 1, 2])
    assert cost == 3 and sorted(used) == [0, 1, 2]
    assert steiner_tree(3, [(0, 1, 1)], [0, 2]) == (INF, [])
    assert steiner_tree(3, [], [1]) == (0, [])
    with pytest.raises(ValueError):
        steiner_tree(2, [(0, 1, 0)], [0, 1])


def cities(*names: str) -> list[str]:
    return [LAT.city(n).node for n in names]


def test_real_lattice_neighbours_and_doubles() -> None:
    # two cities one plain link apart, then a double link apart
    plain = next(lk for lk in LAT.links.values() if lk.cost == 1)
    double = next(lk for lk in LAT.links.values() if lk.cost == 2)
    assert connection(LAT, [plain.a, plain.b]).cost == 1
    assert connection(LAT, [double.a, double.b]).cost <= 2
    # with the double link built, the two ends are joined for free
    assert connection(LAT, [double.a, double.b], {double.id}).cost == 0


def test_existing_track_of_anyone_counts_as_free() -> None:
    terms = cities("paris", "berlin", "wien", "roma", "madrid")
    empty = connection(LAT, terms)
    assert empty.cost > 0
    built = set(empty.links[: len(empty.links) // 2])
    half = connection(LAT, terms, built)
    done = sum(LAT.links[lid].cost for lid in built)
    assert half.cost == empty.cost - done
    assert connection(LAT, terms, set(empty.links)).cost == 0


def test_blocking_a_link_never_helps_and_building_never_hurts() -> None:
    rng = random.Random(7)
    ids = sorted(LAT.links)
    for _ in range(30):
        terms = [
            rng.choice(LAT.cities_of_color(c)).node
            for c in ("red", "orange", "yellow", "green", "blue")
        ]
        base = connection(LAT, terms)
        lid = rng.choice(ids)
        assert connection(LAT, terms, blocked={lid}).cost >= base.cost
        assert connection(LAT, terms, built={lid}).cost <= base.cost
        # bounds: at least one unit per join still needed; at most a star of shortest paths
        assert base.cost >= len(set(terms)) - 1
        star = sum(connection(LAT, [terms[0], t]).cost for t in terms[1:])
        assert base.cost <= star
        check_witness(LAT, terms, set(), set(), base.cost, base.links)


def test_disputed_costs_can_be_switched() -> None:
    alt = trans_europa(alt_costs=True)
    disputed = [lk for lk in LAT.links.values() if lk.cost_alt is not None]
    assert len(disputed) == 2
    for lk in disputed:
        assert alt.links[lk.id].cost == lk.cost_alt
        assert connection(LAT, [lk.a, lk.b]).cost == 1
        assert connection(alt, [lk.a, lk.b]).cost >= 1
