"""Final scoring: route table, tickets with stations, unused stations, the Express, ranks."""

from __future__ import annotations

import random

import pytest

from companion.core.board import GameMap
from companion.core.errors import InvalidStateError
from companion.core.scoring import PlayerEnd, score_final

from .brute import brute_score
from .endstates import random_end_state


def test_route_table(emap: GameMap) -> None:
    assert dict(emap.route_points) == {1: 1, 2: 2, 3: 4, 4: 7, 6: 15, 8: 21}
    p = PlayerEnd("red", routes=("petrograd-stockholm", "palermo-smyrna", "amsterdam-bruxelles"))
    s = score_final(emap, [p]).players[0]
    assert s.route_points == 21 + 15 + 1
    assert s.trains_used == 15


def test_tickets_plus_and_minus(emap: GameMap) -> None:
    # red links Berlin-Frankfurt-Munchen-Wien: berlin-wien done (+3); paris-wien not (-8)
    red = PlayerEnd(
        "red",
        routes=("berlin-frankfurt-2", "frankfurt-munchen", "munchen-wien"),
        tickets=("berlin-wien", "paris-wien"),
    )
    s = score_final(emap, [red]).players[0]
    assert [(t.id, t.completed, t.points) for t in s.tickets] == [
        ("berlin-wien", True, 3),
        ("paris-wien", False, -8),
    ]
    assert s.tickets[0].path == ("berlin-frankfurt-2", "frankfurt-munchen", "munchen-wien")
    assert s.ticket_points == -5
    assert s.station_points == 12
    route_points = sum(emap.points_for(emap.routes[r]) for r in red.routes)
    assert s.route_points == route_points == 4 + 2 + 4
    assert s.longest_route == 8 and s.european_express
    assert s.total == route_points - 5 + 12 + 10


def test_station_borrows_one_route_of_another_player(emap: GameMap) -> None:
    # red owns paris-frankfurt-munchen; blue owns munchen-wien; red's station at munchen borrows it
    red = PlayerEnd(
        "red",
        routes=("frankfurt-paris-1", "frankfurt-munchen"),
        stations=("munchen",),
        tickets=("paris-wien",),
    )
    blue = PlayerEnd("blue", routes=("munchen-wien", "munchen-zurich"))
    s = score_final(emap, [red, blue]).by_color("red")
    assert s.tickets[0].completed and s.ticket_points == 8
    assert s.station_routes == {"munchen": "munchen-wien"}
    assert s.tickets[0].path == ("frankfurt-paris-1", "frankfurt-munchen", "munchen-wien")
    assert s.station_points == 8
    # without the station the ticket fails
    red2 = PlayerEnd("red", routes=red.routes, tickets=("paris-wien",))
    assert score_final(emap, [red2, blue]).by_color("red").ticket_points == -8


def test_station_uses_the_same_route_for_every_ticket(emap: GameMap) -> None:
    # red's station at munchen sits between two blue routes; paris-wien (8) needs munchen-wien,
    # amsterdam-venezia (6) needs munchen-venezia: only one may be borrowed, so the 8 completes.
    red = PlayerEnd(
        "red",
        routes=("frankfurt-paris-1", "amsterdam-frankfurt", "frankfurt-munchen"),
        stations=("munchen",),
        tickets=("paris-wien", "amsterdam-venezia"),
    )
    blue = PlayerEnd("blue", routes=("munchen-wien", "munchen-venezia"))
    s = score_final(emap, [red, blue]).by_color("red")
    assert [(t.id, t.completed) for t in s.tickets] == [
        ("paris-wien", True),
        ("amsterdam-venezia", False),
    ]
    assert s.ticket_points == 8 - 6
    assert s.station_routes == {"munchen": "munchen-wien"}


def test_station_cannot_borrow_own_or_free_routes(emap: GameMap) -> None:
    red = PlayerEnd("red", stations=("munchen",), tickets=("paris-wien",))
    s = score_final(emap, [red, PlayerEnd("blue")]).by_color("red")
    assert not s.tickets[0].completed and s.station_routes == {"munchen": None}


def test_two_stations_chain_two_borrowed_routes(emap: GameMap) -> None:
    # frankfurt-kobenhavn via essen, both legs blue: each of red's stations borrows one
    red = PlayerEnd("red", stations=("frankfurt", "kobenhavn"), tickets=("frankfurt-kobenhavn",))
    blue = PlayerEnd("blue", routes=("essen-frankfurt", "essen-kobenhavn-1"))
    s = score_final(emap, [red, blue]).by_color("red")
    assert s.tickets[0].completed and s.ticket_points == 5
    assert s.station_routes == {"frankfurt": "essen-frankfurt", "kobenhavn": "essen-kobenhavn-1"}
    assert s.stations_built == 2 and s.station_points == 4


def test_express_ties_all_get_ten(emap: GameMap) -> None:
    a = PlayerEnd("red", routes=("berlin-wien",))  # 3
    b = PlayerEnd("blue", routes=("frankfurt-munchen",))  # 2
    c = PlayerEnd("green", routes=("essen-kobenhavn-1",))  # 3
    result = score_final(emap, [a, b, c])
    got = {p.color: (p.longest_route, p.express_points) for p in result.players}
    assert got == {"red": (3, 10), "blue": (2, 0), "green": (3, 10)}


def _disjoint(emap: GameMap, lengths: list[int], avoid: set[str]) -> list[str]:
    """Routes of the given lengths that share no city with each other or with ``avoid``."""
    used = set(avoid)
    out = []
    for n in lengths:
        r = next(
            r
            for r in sorted(emap.routes.values(), key=lambda r: r.id)
            if r.length == n and r.a not in used and r.b not in used
        )
        used |= {r.a, r.b}
        out.append(r.id)
    return out


def _cities(emap: GameMap, routes: list[str]) -> set[str]:
    return {c for r in routes for c in emap.routes[r].cities}


def test_tie_break_most_completed_tickets(emap: GameMap) -> None:
    # red completes berlin-wien (+3) and fails another 3-point ticket (-3); blue holds none.
    assert emap.routes["berlin-wien"].length == 3 and emap.tickets["berlin-wien"].points == 3
    other3 = next(
        t.id
        for t in emap.tickets.values()
        if t.points == 3 and t.id != "berlin-wien" and not {t.a, t.b} & {"berlin", "wien"}
    )
    (blue_route,) = _disjoint(emap, [3], {"berlin", "wien"})
    red = PlayerEnd("red", routes=("berlin-wien",), tickets=("berlin-wien", other3))
    blue = PlayerEnd("blue", routes=(blue_route,))
    result = score_final(emap, [red, blue])
    assert result.by_color("red").total == result.by_color("blue").total
    assert result.winners == ["red"]
    assert {p.color: p.rank for p in result.players} == {"red": 1, "blue": 2}


def test_tie_break_fewest_stations(emap: GameMap) -> None:
    # red: 3 + 2 + 2 long, disjoint (8 points, longest 3) and one station (8 points);
    # blue: one 3-long route (4 points) and three stations left (12 points). Both 26.
    red_routes = _disjoint(emap, [3, 2, 2], set())
    (blue_route,) = _disjoint(emap, [3], _cities(emap, red_routes))
    red = PlayerEnd("red", routes=tuple(red_routes), stations=("athina",))
    blue = PlayerEnd("blue", routes=(blue_route,))
    result = score_final(emap, [red, blue])
    assert result.by_color("red").total == result.by_color("blue").total == 26
    assert result.winners == ["blue"]


def test_tie_break_european_express(emap: GameMap) -> None:
    # red: one 4-long route (7) + Express (10); blue: four 3-long and one 1-long, all apart
    # (17, longest 3). Equal totals, no tickets, no stations: the Express decides.
    (red_route,) = _disjoint(emap, [4], set())
    blue_routes = _disjoint(emap, [3, 3, 3, 3, 1], _cities(emap, [red_route]))
    result = score_final(
        emap, [PlayerEnd("red", routes=(red_route,)), PlayerEnd("blue", routes=tuple(blue_routes))]
    )
    assert result.by_color("red").total == result.by_color("blue").total
    assert result.by_color("red").european_express and not result.by_color("blue").european_express
    assert result.winners == ["red"]


def test_full_tie_shares_first_place(emap: GameMap) -> None:
    a, b = _disjoint(emap, [4, 4], set())
    result = score_final(emap, [PlayerEnd("red", routes=(a,)), PlayerEnd("blue", routes=(b,))])
    assert sorted(result.winners) == ["blue", "red"]
    assert [p.rank for p in result.players] == [1, 1]


def test_spec_example_shape(emap: GameMap) -> None:
    p = PlayerEnd(
        "red",
        "Aki",
        routes=("budapest-wien-1", "berlin-frankfurt-2"),
        stations=("wien",),
        tickets=("brest-petrograd", "paris-wien"),
    )
    out = score_final(emap, [p]).to_json()
    player = out["players"][0]
    for key in (
        "name",
        "color",
        "route_points",
        "ticket_points",
        "tickets",
        "stations_built",
        "station_points",
        "station_routes",
        "longest_route",
        "european_express",
        "express_points",
        "total",
        "rank",
    ):
        assert key in player
    assert player["tickets"][0].keys() >= {"id", "completed", "points"}
    assert out["winners"] == ["red"]


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ([PlayerEnd("red", routes=("nowhere-else",))], "unknown route id"),
        ([PlayerEnd("red", stations=("atlantis",))], "unknown city id"),
        ([PlayerEnd("red", tickets=("a-b",))], "unknown ticket id"),
        (
            [PlayerEnd("red", routes=("berlin-wien",)), PlayerEnd("blue", routes=("berlin-wien",))],
            "owned by red and blue",
        ),
        ([PlayerEnd("red", routes=("berlin-wien", "berlin-wien"))], "owned twice"),
        ([PlayerEnd("red", stations=("wien", "roma", "paris", "berlin"))], "only 3"),
        (
            [PlayerEnd("red", stations=("wien",)), PlayerEnd("blue", stations=("wien",))],
            "two stations on wien",
        ),
        ([PlayerEnd("red", routes=("berlin-frankfurt-1", "berlin-frankfurt-2"))], "both"),
        (
            [
                PlayerEnd("red", routes=("berlin-frankfurt-1",)),
                PlayerEnd("blue", routes=("berlin-frankfurt-2",)),
                PlayerEnd("green"),
            ],
            "only one route of a double",
        ),
        (
            [PlayerEnd("red", tickets=("paris-wien",)), PlayerEnd("blue", tickets=("paris-wien",))],
            "held by red and blue",
        ),
        ([PlayerEnd("red"), PlayerEnd("red")], "two players have the colour red"),
        ([PlayerEnd("purple")], "unknown player colour"),
        ([], "no players"),
    ],
)
def test_impossible_states_are_refused(emap: GameMap, players, message: str) -> None:
    with pytest.raises(InvalidStateError, match=message):
        score_final(emap, players)


def test_over_45_trains_is_refused(emap: GameMap) -> None:
    long_routes = sorted(emap.routes.values(), key=lambda r: -r.length)
    chosen, total = [], 0
    for r in long_routes:
        if r.twin and r.twin in chosen:
            continue
        chosen.append(r.id)
        total += r.length
        if total > 45:
            break
    with pytest.raises(InvalidStateError, match="trains on the board"):
        score_final(emap, [PlayerEnd("red", routes=tuple(chosen))])


def test_double_routes_both_taken_with_four_players_is_fine(emap: GameMap) -> None:
    players = [
        PlayerEnd("red", routes=("berlin-frankfurt-1",)),
        PlayerEnd("blue", routes=("berlin-frankfurt-2",)),
        PlayerEnd("green"),
        PlayerEnd("yellow"),
    ]
    assert len(score_final(emap, players).players) == 4


def test_agrees_with_brute_force_on_random_end_states(emap: GameMap) -> None:
    rng = random.Random(2024)
    checked = borrowed = completed = 0
    for _ in range(300):
        players = random_end_state(emap, rng)
        got = score_final(emap, players)
        want = brute_score(emap, players)
        for p, w in zip(got.players, want, strict=True):
            assert (
                p.route_points,
                p.ticket_points,
                p.longest_route,
                p.express_points,
                p.total,
                p.rank,
            ) == (
                w["route_points"],
                w["ticket_points"],
                w["longest"],
                w["express"],
                w["total"],
                w["rank"],
            ), (players, p, w)
            assert p.tickets_completed == w["completed"]
            checked += 1
            borrowed += sum(1 for r in p.station_routes.values() if r is not None)
            completed += p.tickets_completed
    # the sample really exercises stations and completed tickets
    assert checked > 600 and borrowed > 100 and completed > 500, (checked, borrowed, completed)
