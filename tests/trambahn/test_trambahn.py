"""Trambahn scoring: the rule text's examples and rules, sessions, the table, bad input."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError
from companion.trambahn import TRAMS, Line, Scoring, Session, Table, card_counts, stop_points
from companion.trambahn.model import check_supply, parse_card, parse_color, parse_tram


def snap(a: list[dict[str, Any]], b: list[dict[str, Any]], **event: Any) -> dict[str, Any]:
    return {"players": [{"name": "Aki", "lines": a}, {"name": "Ben", "lines": b}], **event}


def test_the_deck_of_the_rule_text() -> None:
    # 112 stop cards: 4 colours x (1 and 10 twice, 2-9 three times); 5 + 4 + 7 trams
    assert card_counts() == {"stop_cards_per_color": 28, "stop_cards": 112, "tram_cards": 16}
    assert {m: (t.name, t.cards, t.price) for m, t in TRAMS.items()} == {
        2: ("horse", 5, 5000),
        3: ("steam", 4, 10000),
        4: ("electric", 7, 15000),
    }


def test_stop_points() -> None:
    assert [stop_points(v) for v in range(1, 11)] == [1, 1, 1, 1, 1, 1, 2, 2, 2, 3]
    with pytest.raises(NotationError):
        stop_points(11)


def test_rule_text_example_brown_6_7_with_a_horse_tram() -> None:
    # the photo: brown stops 6 and 7, a horse tram (x2) bought for the brown line
    s = Scoring.from_json(
        snap(
            [{"color": "brown", "tram": "horse", "cards": [6, 7]}],
            [{"color": "green", "tram": "steam", "cards": [2, 9]}],
            kind="terminal",
            color="brown",
        )
    )
    points, details = s.result()
    assert points == {"Aki": (1 + 2) * 2, "Ben": 0}  # Ben has no brown line: 0
    assert [d.to_json()["multiplier"] for d in details] == [2]


def test_terminal_scoring_counts_every_line_of_the_colour_and_ignores_conductors() -> None:
    s = Scoring.from_json(
        snap(
            [
                {"color": "green", "tram": 4, "cards": [1, "C", 7, "C", 10]},
                {"color": "green", "tram": 2, "cards": [3]},
                {"color": "blue", "tram": 3, "cards": [9, 10]},
            ],
            [{"color": "green", "tram": "electric", "cards": ["C"]}],
            kind="terminal",
            color="green",
        )
    )
    points, _ = s.result()
    assert points == {"Aki": (1 + 2 + 3) * 4 + 1 * 2, "Ben": 0}


def test_extra_run_scores_the_line_as_at_its_eighth_card() -> None:
    cards = [1, 2, "C", 4, 5, 7, "C", 8, 9]  # the 9th card came later: no effect
    s = Scoring.from_json(
        snap(
            [{"id": "L", "color": "yellow", "tram": 3, "cards": cards}],
            [],
            scoring={"kind": "extra", "player": "Aki", "line": "L"},
        )
    )
    points, _ = s.result()
    assert points == {"Aki": (1 + 1 + 1 + 1 + 2 + 2) * 3, "Ben": 0}
    with pytest.raises(InvalidStateError, match="8th"):
        Scoring.from_json(
            snap(
                [{"id": "L", "color": "yellow", "tram": 3, "cards": [1, 2]}],
                [],
                kind="extra",
                player="Aki",
                line="L",
            )
        )


def test_a_line_without_a_tram_scores_nothing() -> None:
    assert Line("x", "blue", None, (7, 8, 9)).points() == 0


@pytest.mark.parametrize(
    ("cards", "words"),
    [
        ([5, 5], "ascending"),
        ([7, 3], "ascending"),
        ([2, 10, 3], "finishes"),
        ([10, "C"], "finishes"),
    ],
)
def test_line_order(cards: list[Any], words: str) -> None:
    with pytest.raises(InvalidStateError, match=words):
        Line.from_json({"color": "blue", "tram": 2, "cards": cards})


def test_skipping_numbers_is_allowed() -> None:
    line = Line.from_json({"color": "blue", "tram": 2, "cards": [1, 4, "C", 9]})
    assert line.stops == (1, 4, 9) and line.conductors == 1 and not line.finished


def test_supply() -> None:
    ones = [Line(f"b{i}", "blue", 2, (1,)) for i in range(3)]
    with pytest.raises(InvalidStateError, match="only 2"):
        check_supply(ones)
    check_supply(ones[:2])
    horses = [Line(f"h{i}", "blue", 2, ()) for i in range(6)]
    with pytest.raises(InvalidStateError, match="horse"):
        check_supply(horses)


def test_parsers() -> None:
    assert parse_color("茶") == "brown" and parse_color(" Green ") == "green"
    assert parse_card("車掌") == "C" and parse_card("7") == 7 and parse_card("conductor") == "C"
    assert parse_tram("電車") == 4 and parse_tram("×3") == 3 and parse_tram(None) is None
    for bad in (
        lambda: parse_color("red"),
        lambda: parse_card(0),
        lambda: parse_card(True),
        lambda: parse_card("x"),
        lambda: parse_tram(5),
        lambda: parse_tram("tram"),
    ):
        with pytest.raises(NotationError):
            bad()


def terminal(color: str, a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    return snap(a, b, kind="terminal", color=color)


def test_session_of_ten_terminal_scorings() -> None:
    a = [{"id": "g", "color": "green", "tram": 2, "cards": [2]}]
    b = [{"id": "y", "color": "yellow", "tram": 4, "cards": [10]}]
    scorings = [terminal("green" if i % 2 else "yellow", a, b) for i in range(10)]
    long = [{"id": "g", "color": "green", "tram": 2, "cards": [2, 3, 4, 5, 6, 7, 8, "C"]}]
    scorings.insert(3, snap(long, b, kind="extra", player="Aki", line="g"))
    # later snapshots must keep the cards the line had
    for s in scorings[4:]:
        s["players"][0]["lines"] = long
    s = Session.from_json({"game": "trambahn", "players": ["Aki", "Ben"], "scorings": scorings})
    report = s.report()
    assert report["terminal_scorings"] == 10 and report["game_over"]
    extra = (1 * 5 + 2 * 2) * 2
    # green scorings: 1 before the extra run (line [2]: 2 pts), 4 after (line long: 18 pts)
    assert s.totals["Aki"] == 2 + extra + 4 * extra
    assert s.totals["Ben"] == 5 * 3 * 4
    assert report["winners"] == ["Aki"]
    assert report["scorings"][-1]["totals"] == s.totals
    assert Session.from_json(s.to_json()).report() == report
    with pytest.raises(IllegalActionError) as info:
        s.add(Scoring.from_json(terminal("green", a, b)))
    assert info.value.rule == "game_over"


def test_session_refuses_a_second_extra_run_and_shrinking_lines() -> None:
    long = [{"id": "g", "color": "green", "tram": 2, "cards": [1, 2, 3, 4, 5, 6, 7, 8]}]
    ev = snap(long, [], kind="extra", player="Aki", line="g")
    with pytest.raises(IllegalActionError) as info:
        Session.from_json({"players": ["Aki", "Ben"], "scorings": [ev, ev]})
    assert info.value.rule == "extra_once"
    short = [{"id": "g", "color": "green", "tram": 2, "cards": [1, 2]}]
    with pytest.raises(InvalidStateError, match="never leave"):
        Session.from_json(
            {"players": ["Aki", "Ben"], "scorings": [ev, terminal("green", short, [])]}
        )


def test_table_follows_the_game_card_by_card() -> None:
    t = Table(("Aki", "Ben"))
    lid = t.start_line("Aki", "brown")
    t.stop("Aki", lid, 6)
    t.stop("Aki", lid, 7)
    t.tram("Aki", lid, "horse")
    with pytest.raises(IllegalActionError) as info:
        t.tram("Aki", lid, "steam")
    assert info.value.rule == "one_tram_per_line"
    gone_line = t.start_line("Ben", "green")
    t.stop("Ben", gone_line, 3)
    assert t.end_turn("Ben") == [gone_line] and t.lines["Ben"] == []
    with pytest.raises(IllegalActionError) as info:
        t.stop("Aki", lid, 5)
    assert info.value.rule == "ascending"
    assert t.passenger("brown", 2) is None
    assert t.passenger("brown", "C") is None
    assert t.passenger("brown", 9) is None
    assert t.passenger("brown", 1) == {"Aki": 6, "Ben": 0}  # the 4th passenger scores
    assert t.passengers["brown"] == 0 and t.s.terminal_scorings == 1
    for card in (8, "C", "C", "C", "C"):
        assert t.stop("Aki", lid, card) is None
    assert t.stop("Aki", lid, 10) == {"Aki": (1 + 2 + 2 + 3) * 2, "Ben": 0}  # 8th card
    with pytest.raises(IllegalActionError) as info:
        t.stop("Aki", lid, "C")
    assert info.value.rule == "line_finished"
    again = Table.from_json(t.to_json())
    assert again.to_json() == t.to_json()
    assert Session.from_json(t.s.to_json()).totals == t.s.totals == {"Aki": 6 + 16, "Ben": 0}


def test_random_tables_agree_with_their_sessions() -> None:
    """Seeded random tap sequences: the table's totals equal an independent sum over its
    scorings, and its session file scores the same."""
    for seed in range(30):
        rng = random.Random(seed)
        t = Table(("Aki", "Ben"))
        expected = {"Aki": 0, "Ben": 0}
        while not t.s.over:
            who = rng.choice(t.players)
            r = rng.random()
            if r < 0.35:
                got = t.passenger(rng.choice(["blue", "brown", "green", "yellow"]))
                if got:
                    for p, v in got.items():
                        expected[p] += v
            elif r < 0.45 or not t.lines[who]:
                lid = t.start_line(who, rng.choice(["blue", "brown", "green", "yellow"]))
                try:
                    t.tram(who, lid, rng.choice([2, 3, 4]))
                except IllegalActionError:
                    t.end_turn(who)
            else:
                ln = rng.choice(t.lines[who])
                card: Any = "C" if rng.random() < 0.2 else rng.randint(1, 10)
                try:
                    got = t.stop(who, ln.id, card)
                except IllegalActionError:
                    continue
                if got:
                    assert len(t.lines[who][[x.id for x in t.lines[who]].index(ln.id)].cards) == 8
                    for p, v in got.items():
                        expected[p] += v
        assert t.s.totals == expected
        assert Session.from_json(t.s.to_json()).totals == expected


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"players": [{"name": "Aki", "lines": []}]},
        {
            "players": [{"name": "A", "lines": []}, {"name": "A", "lines": []}],
            "kind": "terminal",
            "color": "blue",
        },
        snap([], [], kind="bonus"),
        snap([], [], kind="terminal", color="red"),
        snap([{"color": "blue", "cards": "123"}], [], kind="terminal", color="blue"),
        snap([], [], kind="extra", player="Cy", line="x"),
        snap([], [], kind="extra", player="Aki", line="x"),
    ],
)
def test_malformed_scorings(data: Any) -> None:
    with pytest.raises(NotationError):
        Scoring.from_json(data)
