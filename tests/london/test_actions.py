"""London actions: text and JSON forms, and what London does not have."""

from __future__ import annotations

import pytest

from companion.core.errors import NotationError
from companion.london.actions import (
    ClaimRoute,
    DrawDeck,
    DrawFaceUp,
    DrawTickets,
    DrewCards,
    EndTurn,
    KeepTickets,
    Pass,
    action_from_json,
    parse_action,
)
from companion.london.cards import BUS, Card, parse_card

ACTIONS = [
    DrawDeck("red"),
    DrawFaceUp("red", BUS),
    DrawFaceUp("blue", Card.ORANGE),
    ClaimRoute("red", "big-ben--elephant-castle", (Card.YELLOW, BUS, BUS)),
    ClaimRoute("red", "big-ben--waterloo"),
    ClaimRoute("red", "big-ben--waterloo", ()),
    DrawTickets("green"),
    KeepTickets("green", ("covent-garden--hyde-park",)),
    DrewCards("yellow", 1),
    EndTurn("yellow"),
    Pass("blue"),
]


@pytest.mark.parametrize("action", ACTIONS)
def test_forms_round_trip(action: object) -> None:
    assert parse_action(action.to_text()) == action  # type: ignore[attr-defined]
    assert action_from_json(action.to_json()) == action  # type: ignore[attr-defined]


def test_text_and_json_shapes() -> None:
    claim = ClaimRoute("red", "big-ben--elephant-castle", (Card.YELLOW, BUS, BUS))
    assert claim.to_text() == "red claim big-ben--elephant-castle yellow bus bus"
    assert claim.to_json() == {
        "type": "claim",
        "player": "red",
        "route": "big-ben--elephant-castle",
        "cards": ["yellow", "bus", "bus"],
    }
    assert parse_action("red draw face wild") == DrawFaceUp("red", BUS)
    assert parse_action("RED claim big-ben--waterloo Blue") == ClaimRoute(
        "red", "big-ben--waterloo", (Card.BLUE,)
    )
    assert parse_card("multicolour") is BUS and parse_card("purple") is Card.PINK


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("red station big-ben", "no stations"),
        ("red reveal bus", "no tunnels"),
        ("red claim big-ben--waterloo red", "unknown London card 'red'"),
        ("red draw face locomotive", "unknown London card"),
        ("red fly", "unknown verb"),
        ("purple end", "unknown player colour"),
        ("red", "expected '<player> <verb>"),
        ("red end now", "takes no arguments"),
        ("red drew 3", "drew [0|1|2]"),
        ("red claim", "needs a route id"),
    ],
)
def test_bad_text(text: str, message: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_action(text)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "build_station", "player": "red"}, "no stations"),
        ({"type": "tunnel_pay", "player": "red"}, "no tunnels"),
        ({"type": "fly", "player": "red"}, "unknown action type"),
        ({"type": "claim"}, '"player"'),
        ({"type": "claim", "player": "red"}, '"route"'),
        ({"type": "claim", "player": "red", "route": "x", "cards": "bus"}, "list of card"),
        ({"type": "draw_face_up", "player": "red"}, '"card"'),
        ({"type": "keep_tickets", "player": "red"}, '"tickets"'),
        ({"type": "drew_cards", "player": "red", "count": 5}, '"count"'),
        ([1], "JSON object"),
    ],
)
def test_bad_json(data: object, message: str) -> None:
    with pytest.raises(NotationError) as err:
        action_from_json(data)
    assert message in str(err.value)
