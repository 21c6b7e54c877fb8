"""The European Express: loops, forks, figure-eights, and random graphs against brute force."""

from __future__ import annotations

import random

from companion.core.board import Route
from companion.core.longest import longest_trail

from .brute import brute_longest


def net(*edges: tuple[str, str, int]) -> list[Route]:
    return [Route(f"r{i}", a, b, n, None) for i, (a, b, n) in enumerate(edges)]


def check_trail(routes: list[Route]) -> int:
    trail = longest_trail(routes)
    by_id = {r.id: r for r in routes}
    # the reported routes form a real trail: distinct and each starts where the last ended
    assert len(set(trail.routes)) == len(trail.routes)
    assert sum(by_id[r].length for r in trail.routes) == trail.length
    if trail.routes:
        city = trail.start
        for rid in trail.routes:
            r = by_id[rid]
            assert city in r.cities, f"{rid} does not continue from {city}"
            city = r.other_end(city)
    return trail.length


def test_empty_and_single() -> None:
    assert longest_trail([]).length == 0
    assert check_trail(net(("a", "b", 4))) == 4


def test_fork_takes_the_two_longest_branches() -> None:
    # a star: three branches of 2, 3, 6 from the centre
    routes = net(("c", "x", 2), ("c", "y", 3), ("c", "z", 6))
    assert check_trail(routes) == 9


def test_loop_counts_every_train_once() -> None:
    # a triangle closes a loop: all of it, and a tail hanging off it
    routes = net(("a", "b", 2), ("b", "c", 3), ("c", "a", 4), ("a", "t", 1))
    assert check_trail(routes) == 10
    assert check_trail(net(("a", "b", 2), ("b", "c", 3), ("c", "a", 4))) == 9


def test_figure_eight_revisits_the_middle_city() -> None:
    # two loops sharing city m: the trail passes m twice
    routes = net(
        ("m", "a", 2), ("a", "b", 2), ("b", "m", 2), ("m", "c", 3), ("c", "d", 3), ("d", "m", 3)
    )
    assert check_trail(routes) == 15


def test_two_loops_joined_by_a_bridge() -> None:
    routes = net(
        ("a", "b", 1),
        ("b", "c", 1),
        ("c", "a", 1),
        ("c", "d", 4),
        ("d", "e", 2),
        ("e", "f", 2),
        ("f", "d", 2),
    )
    assert check_trail(routes) == 13


def test_parallel_routes_are_distinct_trains() -> None:
    # a double route between two cities is two different routes: a loop of length 6
    routes = net(("a", "b", 3), ("a", "b", 3), ("b", "c", 1))
    assert check_trail(routes) == 7


def test_disconnected_networks_do_not_add_up() -> None:
    routes = net(("a", "b", 4), ("c", "d", 3), ("d", "e", 3))
    assert check_trail(routes) == 6


def test_random_graphs_match_brute_force() -> None:
    rng = random.Random(7)
    for _ in range(300):
        n_cities = rng.randint(2, 7)
        edges = []
        for _ in range(rng.randint(1, 8)):
            a, b = rng.sample(range(n_cities), 2)
            edges.append((f"c{a}", f"c{b}", rng.choice([1, 2, 3, 4, 6, 8])))
        routes = net(*edges)
        assert check_trail(routes) == brute_longest(routes), edges


def test_europe_networks_match_brute_force(emap) -> None:
    rng = random.Random(11)
    routes = list(emap.routes.values())
    for _ in range(30):
        start = rng.choice(list(emap.cities))
        chosen: list[Route] = []
        frontier = {start}
        trains = 0
        while True:
            options = [
                r
                for r in routes
                if r not in chosen
                and (r.a in frontier or r.b in frontier)
                and trains + r.length <= 16
            ]
            if not options:
                break
            r = rng.choice(options)
            chosen.append(r)
            trains += r.length
            frontier |= {r.a, r.b}
        assert longest_trail(chosen).length == brute_longest(chosen)
