"""The rules of a Trans Europa round, each from the rule text, on the real lattice."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError
from companion.transeuropa import (
    EndTurn,
    PlaceStart,
    PlaceTrack,
    Round,
    action_from_json,
    deal_cities,
    parse_action,
    trans_europa,
)
from companion.transeuropa.steiner import connection

LAT = trans_europa()
RED_CITIES = ["london", "paris", "malmo", "minsk", "roma"]
BLUE_CITIES = ["madrid", "berlin", "oslo", "kyiv", "sofia"]


def new_round(colored: bool = False, **kw: Any) -> Round:
    return Round.new(
        LAT,
        [("red", "Aki"), ("blue", "Ben")],
        {"red": RED_CITIES, "blue": BLUE_CITIES},
        colored_variant=colored,
        **kw,
    )


def started(red: str = "paris", blue: str = "kyiv", colored: bool = False) -> Round:
    r = new_round(colored)
    r.apply(PlaceStart("red", red))
    r.apply(PlaceStart("blue", blue))
    return r


def ordered(start: str, links: list[str]) -> list[str]:
    """The links in an order that keeps each one joined to what came before."""
    todo, done, net = list(links), [], {start}
    while todo:
        for lid in todo:
            lk = LAT.links[lid]
            if lk.a in net or lk.b in net:
                done.append(lid)
                net |= {lk.a, lk.b}
                todo.remove(lid)
                break
        else:
            raise AssertionError("links not joined to the start")
    return done


def rule_of(r: Round, action: Any) -> str:
    with pytest.raises(IllegalActionError) as info:
        r.apply(action)
    return info.value.rule


def plain_from(node: str, r: Round | None = None) -> str:
    return next(
        lk.id for lk in LAT.links_at[node] if lk.cost == 1 and (r is None or lk.id not in r.tracks)
    )


def test_first_turn_places_start_markers_even_on_a_city() -> None:
    r = new_round(start_player=1)
    assert r.current_player.color == "blue"
    assert rule_of(r, PlaceTrack("blue", "0906-1005")) == "start_first"
    assert rule_of(r, EndTurn("blue")) == "start_first"
    assert rule_of(r, PlaceStart("red", "0906")) == "not_your_turn"
    r.apply(PlaceStart("blue", "berlin"))  # a city, even one of one's own
    assert r.player("blue").start == "1605"
    r.apply(PlaceStart("red", "0500"))
    assert r.phase == "build" and r.current_player.color == "blue"
    assert rule_of(r, PlaceStart("blue", "0700")) == "start_once"


def test_one_or_two_plain_tracks_per_turn() -> None:
    r = started()
    first = plain_from("0906")
    r.apply(PlaceTrack("red", first))
    assert r.current_player.color == "red" and r.placed == [first]
    lk = LAT.links[first]
    far = lk.b if lk.a == "0906" else lk.a
    second = plain_from(far, r)  # may extend the first track
    r.apply(PlaceTrack("red", second))
    assert r.current_player.color == "blue", "the turn ends after two tracks"
    assert r.stock == LAT.black_tracks - 2


def test_one_plain_track_then_end() -> None:
    r = started()
    assert rule_of(r, EndTurn("red")) == "must_place"
    r.apply(PlaceTrack("red", plain_from("0906")))
    r.apply(EndTurn("red"))
    assert r.current_player.color == "blue"


def test_the_two_tracks_may_be_far_apart_on_the_network() -> None:
    r = started()
    r.apply(PlaceTrack("red", "0906-1005"))
    r.apply(PlaceTrack("red", "0805-0906"))  # the other side of the start marker
    assert r.current_player.color == "blue"


def test_a_double_link_is_the_whole_turn() -> None:
    r = started(red="amsterdam")
    assert LAT.links["1003-1104"].double
    r.apply(PlaceTrack("red", "1003-1104"))
    assert r.current_player.color == "blue", "the turn ends after a double link"
    r.apply(PlaceTrack("blue", plain_from("2906")))
    r.apply(EndTurn("blue"))
    r.apply(PlaceTrack("red", "1104-1205"))
    assert rule_of(r, PlaceTrack("red", "0904-1104")) == "one_double_per_turn"


def test_tracks_join_the_own_network_only() -> None:
    r = started()
    assert rule_of(r, PlaceTrack("red", plain_from("2906"))) == "not_connected"
    r.apply(PlaceTrack("red", "0906-1005"))
    assert rule_of(r, PlaceTrack("red", "0906-1005")) == "occupied"
    assert r.placement_problem("red", "1504-1605") == "not_connected"
    with pytest.raises(NotationError):
        r.apply(PlaceTrack("red", "0906-2906"))


def test_joined_networks_are_shared() -> None:
    # red and blue start two plain links apart; once joined, red builds from blue's far end
    r = started(red="0906", blue="1306")
    r.apply(PlaceTrack("red", "0906-1007"))
    r.apply(EndTurn("red"))
    r.apply(PlaceTrack("blue", "1306-1407"))  # double: the whole turn
    assert r.placement_problem("red", "1407-1508") == "not_connected"
    r.apply(PlaceTrack("red", "0906-1106"))
    r.apply(PlaceTrack("red", "1106-1306"))  # joins the two networks
    assert r.network("red") == r.network("blue")
    r.apply(PlaceTrack("blue", "1407-1508"))
    r.apply(EndTurn("blue"))
    r.apply(PlaceTrack("red", "1508-1609"))  # on blue's end, far from red's own tracks
    assert {"0906", "1306", "1508", "1609"} <= r.network("red")
    assert r.current_player.color == "blue"


def almost_done(last_double: bool = False) -> tuple[Round, str]:
    """Red's cities joined but for one link; returns the round (red to play) and that link."""
    nodes = [LAT.city(c).node for c in RED_CITIES]
    tree = connection(LAT, nodes)
    links = ordered(nodes[0], list(tree.links))
    pick = [lid for lid in links if LAT.links[lid].double == last_double]
    last = pick[-1]
    rest = [lid for lid in links if lid != last]
    # blue starts on the far side of the gap, so every track is on somebody's network
    reach, todo = {nodes[0]}, [nodes[0]]
    while todo:
        n = todo.pop()
        for lk in LAT.links_at[n]:
            if lk.id in rest and lk.other(n) not in reach:
                reach.add(lk.other(n))
                todo.append(lk.other(n))
    gap = LAT.links[last]
    blue_start = gap.b if gap.a in reach else gap.a
    data = {
        "players": [
            {"color": "red", "cities": RED_CITIES, "start": nodes[0]},
            {"color": "blue", "cities": BLUE_CITIES, "start": blue_start},
        ],
        "tracks": rest,
        "current": "red",
    }
    r = Round.from_json(LAT, data)
    assert not r.complete("red")
    assert r.score().players[0].penalty == LAT.links[last].cost
    return r, last


def test_round_ends_when_five_cities_are_joined_but_a_second_plain_track_may_follow() -> None:
    r, last = almost_done()
    r.apply(PlaceTrack("red", last))
    assert r.complete("red")
    assert r.phase == "build", "the second plain track may still be placed"
    extra = r.legal_placements("red")[0]
    assert not LAT.links[extra.link].double
    r.apply(extra)
    assert r.phase == "over" and r.end_reason == "connected"
    result = r.score()
    assert result.over and result.players[0].complete and result.players[0].penalty == 0
    assert result.players[1].penalty is not None and result.players[1].penalty > 0


def test_round_ends_at_once_after_a_double_link() -> None:
    r, last = almost_done(last_double=True)
    r.apply(PlaceTrack("red", last))
    assert r.phase == "over" and r.end_reason == "connected"


def test_round_ends_on_another_players_turn() -> None:
    r, last = almost_done()
    data = r.to_json()
    data["current"] = "blue"  # blue's start marker is at the gap
    r = Round.from_json(LAT, data)
    r.apply(PlaceTrack("blue", last))
    r.apply(EndTurn("blue"))
    assert r.phase == "over" and r.complete("red") and not r.complete("blue")


def test_round_ends_when_the_tracks_run_out() -> None:
    r = started()
    data = r.to_json()
    data["stock"] = 1
    data["tracks"] = []
    r2 = Round.from_json(LAT, {**data, "stock": LAT.black_tracks})
    assert r2.stock == LAT.black_tracks
    with pytest.raises(InvalidStateError):
        Round.from_json(LAT, data)  # 0 on the board + 1 in stock is not 83
    # play until the stock is empty
    rng = random.Random(1)
    while r.phase != "over":
        r.apply(rng.choice(r.legal_placements(r.current_player.color)))
        if r.phase != "over" and r.placed and rng.random() < 0.5:
            r.apply(EndTurn(r.current_player.color))
    assert r.end_reason in ("stock", "connected")
    if r.end_reason == "stock":
        assert r.stock == 0 and len(r.tracks) == LAT.black_tracks


def test_colored_tracks_are_only_for_their_owner() -> None:
    r = started(red="0906", blue="1106", colored=True)
    r.apply(PlaceTrack("red", "0906-1007", colored=True))
    assert r.player("red").colored_left == 2 and r.stock == LAT.black_tracks
    r.apply(EndTurn("red"))
    r.apply(PlaceTrack("blue", "1007-1106"))  # touches red's coloured track
    r.apply(EndTurn("blue"))
    assert "0906" not in r.network("blue"), "blue cannot run over red's coloured track"
    assert "1106" in r.network("red")
    assert r.placement_problem("blue", "0805-0906") == "not_connected"
    assert r.placement_problem("red", "1106-1306") is None


def test_colored_tracks_limits() -> None:
    r = started(red="0906", blue="2906")
    assert rule_of(r, PlaceTrack("red", "0906-1007", colored=True)) == "variant_off"
    r = started(red="0906", blue="0805", colored=True)
    r.apply(PlaceTrack("red", "0906-1007", colored=True))
    r.apply(PlaceTrack("red", "0906-1005", colored=True))
    # node 0906 now touches two coloured tracks
    assert rule_of(r, PlaceTrack("blue", "0805-0906", colored=True)) == "colored_per_node"
    r.apply(PlaceTrack("blue", "0805-0906"))
    r.apply(EndTurn("blue"))
    r.apply(PlaceTrack("red", "1007-1108", colored=True))
    r.apply(EndTurn("red"))
    r.apply(PlaceTrack("blue", plain_from("0805", r)))
    r.apply(EndTurn("blue"))
    assert r.player("red").colored_left == 0
    assert rule_of(r, PlaceTrack("red", "1108-1209", colored=True)) == "no_colored_left"


def test_colored_tracks_raise_other_players_penalty() -> None:
    # blue's cheapest tree, then red blocks one of its links with a coloured track
    nodes = [LAT.city(c).node for c in BLUE_CITIES]
    tree = connection(LAT, nodes)
    lid = tree.links[0]
    lk = LAT.links[lid]
    data = {
        "variant": "colored",
        "players": [
            {"color": "red", "cities": RED_CITIES, "start": lk.a, "colored_left": 2},
            {"color": "blue", "cities": BLUE_CITIES, "start": lk.b},
        ],
        "tracks": [{"link": lid, "color": "red"}],
    }
    r = Round.from_json(LAT, data)
    blue = r.score().players[1]
    assert blue.penalty is not None and blue.penalty >= tree.cost
    assert lid not in blue.build
    # the same track in black makes it cheaper for blue
    data["tracks"] = [lid]
    data["players"][0]["colored_left"] = 3
    assert Round.from_json(LAT, data).score().players[1].penalty == tree.cost - lk.cost


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d["players"][1].update(cities=RED_CITIES), "held by both"),
        (lambda d: d["players"][0].update(cities=RED_CITIES[:4]), "one city of each colour"),
        (lambda d: d["players"][0].update(cities=["paris", *RED_CITIES[1:]]), "one city of each"),
        (
            lambda d: (
                d.update(tracks=["2906-3005", "0906-1005"], stock=81)
                or d["players"][1].update(start="0906")
            ),
            "not joined to any start marker",
        ),
        (lambda d: d.update(tracks=["0906-1005", "0906-1005"]), "two tracks"),
        (lambda d: d.update(stock=3), "in stock"),
        (lambda d: d["players"].append(dict(d["players"][0])), "colour red"),
        (lambda d: d.update(tracks=[{"link": "0906-1005", "color": "green"}]), "no player"),
        (lambda d: d["players"][0].update(colored_left=4), "coloured tracks left"),
        (lambda d: d.update(players=d["players"][:1]), "2-6 players"),
    ],
)
def test_impossible_positions_are_refused(change: Any, words: str) -> None:
    r = started()
    r.apply(PlaceTrack("red", "0906-1005"))
    data = r.to_json()
    data.pop("history")
    change(data)
    with pytest.raises(InvalidStateError, match=words):
        Round.from_json(LAT, data)


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"game": "london", "players": []},
        {"players": [{"color": "red"}]},
        {"players": [{"color": "black", "cities": []}]},
        {"players": [{"color": "red", "cities": ["atlantis"]}]},
        {"players": [{"color": "red", "cities": RED_CITIES}], "tracks": [7]},
        {"players": [{"color": "red", "cities": RED_CITIES}], "tracks": ["0906-2906"]},
        {"players": [{"color": "red", "cities": RED_CITIES}], "variant": "mega"},
    ],
)
def test_malformed_rounds_are_notation_errors(data: Any) -> None:
    with pytest.raises(NotationError):
        Round.from_json(LAT, data)


def test_links_and_cities_by_name() -> None:
    assert LAT.link("paris-0805").id == "0805-0906"
    assert LAT.link("1005-0906").id == "0906-1005"
    assert LAT.city("Vienna").id == "wien" and LAT.city("ST. PETERSBURG").id == "st-petersburg"
    assert LAT.node("st-petersburg") == LAT.city("st-petersburg").node
    with pytest.raises(NotationError):
        LAT.link("paris")


def test_actions_round_trip() -> None:
    for a in (
        PlaceStart("red", "0906"),
        PlaceTrack("red", "0906-1005"),
        PlaceTrack("blue", "0906-1005", True),
        EndTurn("red"),
    ):
        assert action_from_json(a.to_json()) == a
        assert parse_action(a.to_text()) == a
    for bad in ("red", "red fly", "red track", "red start a b"):
        with pytest.raises(NotationError):
            parse_action(bad)


def test_deal_is_one_city_of_each_colour_and_seeded() -> None:
    hands = deal_cities(LAT, ["a", "b", "c", "d", "e", "f"], random.Random(4))
    assert hands == deal_cities(LAT, ["a", "b", "c", "d", "e", "f"], random.Random(4))
    every = [c for h in hands.values() for c in h]
    assert len(set(every)) == 30
    for h in hands.values():
        assert sorted(LAT.cities[c].color for c in h) == sorted(
            ["red", "orange", "yellow", "green", "blue"]
        )
