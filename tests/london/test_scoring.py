"""London final scoring: routes, tickets, districts, the tie-break, and refusals."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.core.errors import InvalidStateError, NotationError
from companion.data import load_json
from companion.london.board import LondonMap
from companion.london.scoring import (
    PlayerEnd,
    end_state_from_json,
    end_state_to_json,
    score_final,
    validate_end_state,
)

from .brute import brute_score
from .endstates import EIGHTEEN_BUSES, random_end_state

# district 2 (Big Ben, Buckingham Palace, Piccadilly Circus, Trafalgar Square) joined by three of
# its routes; the other routes between them are not needed
DISTRICT_2 = (
    "big-ben--trafalgar-square",
    "buckingham-palace--trafalgar-square",
    "piccadilly-circus--trafalgar-square-1",
)


def test_routes_tickets_and_a_district(lmap: LondonMap) -> None:
    red = PlayerEnd(
        "red",
        "Aki",
        (*DISTRICT_2, "big-ben--waterloo"),
        ("piccadilly-circus--waterloo", "brick-lane--globe-theatre"),
    )
    blue = PlayerEnd("blue", "Ben", ("baker-street--hyde-park",), ())
    result = score_final(lmap, [red, blue])
    aki = result.by_color("red")
    assert aki.route_points == 1 + 2 + 1 + 1
    assert [(t.id, t.completed, t.points) for t in aki.tickets] == [
        ("piccadilly-circus--waterloo", True, 3),
        ("brick-lane--globe-theatre", False, -4),
    ]
    assert aki.tickets[0].path == (
        "piccadilly-circus--trafalgar-square-1",
        "big-ben--trafalgar-square",
        "big-ben--waterloo",
    )
    assert [d.district for d in aki.districts if d.completed] == [2]
    assert aki.district_points == 2
    assert aki.total == 5 - 1 + 2
    ben = result.by_color("blue")
    assert ben.total == 7 and ben.district_points == 0  # Baker Street-Hyde Park: 2 of 4 in 5
    assert result.winners == ["blue"] and (ben.rank, aki.rank) == (1, 2)


def test_a_district_may_be_joined_through_other_locations(lmap: LondonMap) -> None:
    """District 1 (British Museum, Covent Garden) joined via Piccadilly Circus, outside it."""
    via = ("british-museum--piccadilly-circus", "covent-garden--piccadilly-circus-1")
    s = score_final(lmap, [PlayerEnd("red", routes=via), PlayerEnd("blue")]).by_color("red")
    assert [d.district for d in s.districts if d.completed] == [1]
    assert s.district_points == 1
    # two separate networks that each hold part of a district do not complete it
    apart = ("big-ben--trafalgar-square", "buckingham-palace--piccadilly-circus")
    s = score_final(lmap, [PlayerEnd("red", routes=apart), PlayerEnd("blue")]).by_color("red")
    assert s.district_points == 0 and not any(d.completed for d in s.districts)


def test_every_district_completed_scores_its_number(lmap: LondonMap) -> None:
    routes = (
        "british-museum--covent-garden-1",  # 1
        *DISTRICT_2,  # 2
        "elephant-castle--waterloo",
        "elephant-castle--globe-theatre",  # 3
    )
    s = score_final(lmap, [PlayerEnd("red", routes=routes), PlayerEnd("blue")]).by_color("red")
    assert [(d.district, d.points) for d in s.districts if d.completed] == [(1, 1), (2, 2), (3, 3)]
    assert s.district_points == 6
    assert s.total == s.route_points + s.district_points


def test_district_points_are_data(lmap: LondonMap) -> None:
    data: dict[str, Any] = load_json("london.json")
    for d in data["districts"]:
        d["points"] = 10 * d["district"]
    corrected = LondonMap.from_dict(data)
    s = score_final(
        corrected,
        [PlayerEnd("red", routes=("british-museum--covent-garden-2",)), PlayerEnd("blue")],
    )
    assert s.by_color("red").district_points == 10


def test_tie_break_most_tickets_then_shared(lmap: LondonMap) -> None:
    # red: a 2-long route (2) and the ticket along it (+2): 4 points, 1 ticket completed
    red = PlayerEnd(
        "red",
        routes=("british-museum--piccadilly-circus",),
        tickets=("british-museum--piccadilly-circus",),
    )
    # blue: a 3-long route scores 4, no ticket
    blue = PlayerEnd("blue", routes=("brick-lane--st-pauls",))
    result = score_final(lmap, [red, blue])
    assert result.by_color("red").total == result.by_color("blue").total == 4
    assert result.winners == ["red"]
    assert (result.by_color("red").rank, result.by_color("blue").rank) == (1, 2)
    # equal on points and on completed tickets: the victory is shared
    green = PlayerEnd("green", routes=("brick-lane--st-pauls",))
    yellow = PlayerEnd("yellow", routes=("brick-lane--tower-of-london",))
    shared = score_final(lmap, [green, yellow])
    assert shared.winners == ["green", "yellow"]
    assert [p.rank for p in shared.players] == [1, 1]


def test_scores_agree_with_brute_force_on_hundreds_of_states(lmap: LondonMap) -> None:
    rng = random.Random(2024)
    districts_seen = tickets_done = 0
    for _ in range(600):
        players = random_end_state(lmap, rng)
        result = score_final(lmap, players)
        want = brute_score(lmap, players)
        for got, w in zip(result.players, want, strict=True):
            assert got.route_points == w["route_points"]
            assert got.ticket_points == w["ticket_points"]
            assert got.tickets_completed == w["completed"]
            assert got.district_points == w["district_points"]
            assert got.total == w["total"]
            assert got.rank == w["rank"]
            assert got.total == got.route_points + got.ticket_points + got.district_points
            assert got.ticket_points == sum(t.points for t in got.tickets)
            assert got.district_points == sum(d.points for d in got.districts)
            districts_seen += got.district_points > 0
            tickets_done += got.tickets_completed
        assert result.winners == [p.color for p in result.players if p.rank == 1]
    # the states exercise what they are meant to
    assert districts_seen > 200 and tickets_done > 300


def test_completed_ticket_paths_are_own_routes_joining_the_ends(lmap: LondonMap) -> None:
    rng = random.Random(5)
    for _ in range(100):
        players = random_end_state(lmap, rng)
        for p, s in zip(players, score_final(lmap, players).players, strict=True):
            for t in s.tickets:
                if not t.completed:
                    assert t.path == ()
                    continue
                assert set(t.path) <= set(p.routes)
                here = lmap.tickets[t.id].a
                for rid in t.path:
                    here = lmap.routes[rid].other_end(here)
                assert here == lmap.tickets[t.id].b


def test_end_state_json_round_trips(lmap: LondonMap) -> None:
    rng = random.Random(8)
    for _ in range(50):
        players = random_end_state(lmap, rng)
        data = end_state_to_json(players)
        assert end_state_from_json(data) == players
        assert data["map"] == "london"


BAD_STATES: list[tuple[list[PlayerEnd], str]] = [
    ([], "no players"),
    ([PlayerEnd(c) for c in ("red", "blue", "green", "yellow", "black")], "2-4 players"),
    ([PlayerEnd("purple")], "unknown player colour"),
    ([PlayerEnd("red"), PlayerEnd("red")], "two players have the colour red"),
    ([PlayerEnd("red", routes=("big-ben--atlantis",))], "unknown London route id"),
    ([PlayerEnd("red", routes=("paris-wien",))], "unknown London route id"),
    (
        [
            PlayerEnd("red", routes=("big-ben--waterloo",)),
            PlayerEnd("blue", routes=("big-ben--waterloo",)),
        ],
        "owned by red and blue",
    ),
    ([PlayerEnd("red", routes=("big-ben--waterloo", "big-ben--waterloo"))], "owned twice"),
    (
        [
            PlayerEnd(
                "red",
                routes=EIGHTEEN_BUSES,
            )
        ],
        "18 buses",
    ),
    ([PlayerEnd("red", tickets=("paris-wien",))], "unknown London ticket id"),
    (
        [
            PlayerEnd("red", tickets=("covent-garden--hyde-park",)),
            PlayerEnd("blue", tickets=("covent-garden--hyde-park",)),
        ],
        "held by red and blue",
    ),
    (
        [PlayerEnd("red", routes=("globe-theatre--st-pauls-1", "globe-theatre--st-pauls-2"))],
        "both routes of a double",
    ),
    (
        [
            PlayerEnd("red", routes=("globe-theatre--st-pauls-1",)),
            PlayerEnd("blue", routes=("globe-theatre--st-pauls-2",)),
        ],
        "2-player game",
    ),
]


@pytest.mark.parametrize(("players", "message"), BAD_STATES)
def test_impossible_states_are_refused(
    lmap: LondonMap, players: list[PlayerEnd], message: str
) -> None:
    with pytest.raises(InvalidStateError) as err:
        score_final(lmap, players)
    assert message in str(err.value)


def test_doubles_open_with_three_players(lmap: LondonMap) -> None:
    players = [
        PlayerEnd("red", routes=("globe-theatre--st-pauls-1",)),
        PlayerEnd("blue", routes=("globe-theatre--st-pauls-2",)),
        PlayerEnd("green"),
    ]
    validate_end_state(lmap, players)
    assert score_final(lmap, players).by_color("blue").route_points == 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "JSON object"),
        ({"map": "europe", "players": []}, '"map": "london"'),
        ({"map": "london"}, '"players" must be a list'),
        ({"map": "london", "players": [3]}, "must be a JSON object"),
        ({"map": "london", "players": [{"name": "x"}]}, 'has no "color"'),
        (
            {"map": "london", "players": [{"color": "red", "routes": "big-ben--waterloo"}]},
            "list of ids",
        ),
        ({"map": "london", "players": [{"color": "red", "stations": ["big-ben"]}]}, "no stations"),
    ],
)
def test_bad_state_json(data: Any, message: str) -> None:
    with pytest.raises(NotationError) as err:
        end_state_from_json(data)
    assert message in str(err.value)
