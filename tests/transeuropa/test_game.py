"""The score track across rounds: penalties, the red area, the winners, the start player."""

from __future__ import annotations

import random

import pytest

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError
from companion.transeuropa import Match, PlaceStart, PlaceTrack, trans_europa

LAT = trans_europa()


def test_scores_fall_by_the_penalties_and_the_game_ends_in_the_red_area() -> None:
    m = Match(LAT, [("red", "Aki"), ("blue", "Ben"), ("green", "")])
    assert m.scores == {"red": 13, "blue": 13, "green": 13} and not m.over
    m.record({"red": 0, "blue": 7, "green": 4})
    assert m.scores == {"red": 13, "blue": 6, "green": 9} and m.start_player == 1
    assert not m.over and m.winners == []
    m.record({"red": 5, "blue": 6, "green": 0})  # blue reaches 0: the red area
    assert m.over and m.scores["blue"] == 0
    assert m.winners == ["green"]
    with pytest.raises(IllegalActionError):
        m.record({"red": 0, "blue": 0, "green": 0})


def test_a_tie_shares_the_win_and_scores_may_go_below_zero() -> None:
    m = Match(LAT, [("red", ""), ("blue", ""), ("green", "")])
    m.record({"red": 3, "blue": 3, "green": 20})
    assert m.over and m.scores["green"] == -7 and m.winners == ["red", "blue"]


def test_the_red_area_and_start_points_are_settings() -> None:
    m = Match(LAT, [("red", ""), ("blue", "")], start_points=10, red_at_or_below=-1)
    m.record({"red": 10, "blue": 2})
    assert m.scores["red"] == 0 and not m.over
    m.record({"red": 1, "blue": 0})
    assert m.over and m.winners == ["blue"]


def test_json_round_trip_and_checks() -> None:
    m = Match(LAT, [("red", "Aki"), ("blue", "Ben")], colored_variant=True)
    m.record({"red": 4, "blue": 2})
    again = Match.from_json(LAT, m.to_json())
    assert again.to_json() == m.to_json()
    bad = m.to_json()
    bad["scores"]["red"] = 12
    with pytest.raises(InvalidStateError):
        Match.from_json(LAT, bad)
    with pytest.raises(NotationError):
        Match.from_json(LAT, {"players": "red"})
    with pytest.raises(InvalidStateError):
        m.record({"red": 1})
    with pytest.raises(InvalidStateError):
        m.record({"red": -1, "blue": 0})
    with pytest.raises(InvalidStateError):
        Match(LAT, [("red", ""), ("red", "")])
    with pytest.raises(InvalidStateError):
        Match(LAT, [("red", "")])


def test_colored_tracks_last_the_whole_game() -> None:
    m = Match(LAT, [("red", ""), ("blue", "")], colored_variant=True, start_points=100)
    r = m.new_round(rng=random.Random(2))
    r.apply(PlaceStart("red", "0906"))
    r.apply(PlaceStart("blue", "2906"))
    r.apply(PlaceTrack("red", "0906-1005", colored=True))
    # finish the round quickly: pretend it ended and score it
    r.phase, r.end_reason = "over", "stock"
    m.finish_round(r)
    assert m.colored_left == {"red": 2, "blue": 3}
    nxt = m.new_round(rng=random.Random(3))
    assert nxt.player("red").colored_left == 2 and nxt.start_player == 1
    with pytest.raises(IllegalActionError):
        m.finish_round(nxt)


def test_with_2_or_3_players_10_city_cards_2_of_each_colour_leave_the_game() -> None:
    from companion.transeuropa import cities_removed
    from companion.transeuropa.lattice import CITY_COLORS

    gone = cities_removed(LAT, 3, random.Random(4))
    assert len(gone) == 10 and len(set(gone)) == 10
    colours = [LAT.cities[c].color for c in gone]
    assert all(colours.count(col) == 2 for col in CITY_COLORS)
    assert gone == cities_removed(LAT, 2, random.Random(4))  # seeded
    assert cities_removed(LAT, 4, random.Random(4)) == ()
    m = Match(LAT, [("red", ""), ("blue", ""), ("green", "")])
    rng = random.Random(7)
    first = m.new_round(rng=rng)
    removed = m.removed_cities
    assert removed is not None and len(removed) == 10
    m.record({"red": 1, "blue": 1, "green": 1})
    second = m.new_round(rng=rng)
    assert m.removed_cities == removed  # out of the game for every round
    for rnd in (first, second):
        dealt = {c for p in rnd.players for c in p.cities}
        assert len(dealt) == 15 and not dealt & set(removed)
    back = Match.from_json(LAT, m.to_json())
    assert back.removed_cities == removed
