"""Action notation: text and JSON forms round-trip; bad input gets a plain message."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.core.actions import (
    ACTION_TYPES,
    BuildStation,
    ClaimRoute,
    DrawFaceUp,
    DrewCards,
    KeepTickets,
    PayTunnel,
    RevealTunnel,
    action_from_json,
    parse_action,
)
from companion.core.cards import PLAYER_COLORS, Card
from companion.core.errors import NotationError

cards = st.lists(st.sampled_from(list(Card)), max_size=6).map(tuple)
ids = st.sampled_from(["paris-wien", "berlin-frankfurt-2", "wien", "brest-petrograd"])
players = st.sampled_from(PLAYER_COLORS)

actions = st.one_of(
    st.builds(ClaimRoute, players, ids, st.one_of(st.none(), cards)),
    st.builds(BuildStation, players, ids, st.one_of(st.none(), cards)),
    st.builds(PayTunnel, players, st.one_of(st.none(), cards)),
    st.builds(RevealTunnel, players, cards.map(lambda c: c[:3])),
    st.builds(KeepTickets, players, st.lists(ids, max_size=3).map(tuple)),
    st.builds(DrawFaceUp, players, st.sampled_from(list(Card))),
    st.builds(DrewCards, players, st.integers(0, 2)),
    *(st.builds(cls, players) for cls in ACTION_TYPES.values() if len(cls.__slots__) == 0),
)


@given(actions)
def test_text_and_json_round_trip(action) -> None:
    assert parse_action(action.to_text()) == action
    assert action_from_json(action.to_json()) == action


def test_http_api_examples_parse() -> None:
    a = action_from_json(
        {"type": "claim", "player": "red", "route": "paris-zurich", "cards": ["red", "red", "loco"]}
    )
    assert a == ClaimRoute("red", "paris-zurich", (Card.RED, Card.RED, Card.LOCOMOTIVE))
    b = action_from_json(
        {"type": "build_station", "player": "red", "city": "wien", "cards": ["blue"]}
    )
    assert b == BuildStation("red", "wien", (Card.BLUE,))
    c = action_from_json({"type": "keep_tickets", "player": "red", "tickets": ["paris-wien"]})
    assert c == KeepTickets("red", ("paris-wien",))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "must be a JSON object"),
        ({"type": "fly"}, "unknown action type 'fly'"),
        ({"type": "claim"}, 'needs "player"'),
        ({"type": "claim", "player": "pink"}, "unknown player colour"),
        ({"type": "claim", "player": "red", "route": 5}, '"route" of claim'),
        ({"type": "claim", "player": "red", "route": "x", "cards": "red"}, "list of card names"),
        ({"type": "claim", "player": "red", "route": "x", "cards": ["rouge"]}, "unknown card"),
        ({"type": "keep_tickets", "player": "red", "tickets": "a"}, "list of ticket ids"),
        ({"type": "drew_cards", "player": "red", "count": 7}, "0, 1 or 2"),
    ],
)
def test_bad_json_actions(data, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        action_from_json(data)


@pytest.mark.parametrize("text", ["", "red", "pink claim x", "red fly", "red draw", "red end now"])
def test_bad_text_actions(text: str) -> None:
    with pytest.raises(NotationError):
        parse_action(text)
