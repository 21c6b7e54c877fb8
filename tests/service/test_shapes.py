"""Action and observation shapes, tested directly: every malformed request is a 400 (BadRequest)
with one sentence; a well-formed one comes back normalised."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games import game_kind
from companion.service.errors import BadRequest, Conflict
from companion.service.shapes import check_action_shape, check_observation, parse_new_game
from tests.service.pure_games import MAP, PLAYERS


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "JSON object"),
        ({"type": "fly"}, "unknown action type 'fly'"),
        ({"type": "claim", "player": "red"}, ""),
        ({"type": "set_payment_mode", "payment_mode": "loose"}, '"payment_mode" must be one of'),
        ({"type": "redo"}, 'needs "seq"'),
        ({"type": "undo", "seq": True}, "positive whole number"),
        ({"type": "undo", "seq": 0}, "positive whole number"),
        ({"type": "replace", "seq": 3, "action": {"type": "undo"}}, "only a table action"),
        ({"type": "set_board", "routes": {"nowhere": "red"}}, "unknown route id 'nowhere'"),
        ({"type": "set_board", "routes": {"berlin-wien": "teal"}}, "must be a player colour"),
        ({"type": "set_board", "tickets": {"red": ["nowhere"]}}, "unknown ticket id"),
        ({"type": "new_game", "players": "two"}, '"players"'),
        ({"type": "new_game", "players": PLAYERS, "variant": "moon"}, "unknown variant"),
        ({"type": "new_game", "players": PLAYERS, "mode": "video"}, '"mode" must be one of'),
        ({"type": "new_game", "game": "chess", "players": PLAYERS}, "unknown game 'chess'"),
    ],
)
def test_malformed_actions_are_400(data: Any, message: str) -> None:
    with pytest.raises(BadRequest) as refused:
        check_action_shape(data, MAP)
    assert refused.value.status == 400
    assert message in refused.value.message
    assert refused.value.message.endswith(".")


def test_well_formed_actions_come_back_normalised() -> None:
    keep = check_action_shape({"type": "keep_tickets", "player": "red"}, MAP)
    assert keep["type"] == "keep_tickets" and keep["tickets"] == []
    assert check_action_shape({"type": "finish", "extra": 1}, MAP) == {"type": "finish"}
    assert check_action_shape({"type": "undo"}, MAP) == {"type": "undo"}
    fix = check_action_shape(
        {"type": "replace", "seq": 4, "action": {"type": "end_turn", "player": "red"}}, MAP
    )
    assert fix["seq"] == 4 and fix["action"]["type"] == "end_turn"
    board = check_action_shape(
        {"type": "set_board", "routes": {"munchen-wien": "red", "berlin-wien": "blue", "x": None}},
        MAP,
    )
    assert list(board["routes"]) == ["berlin-wien", "munchen-wien"]  # sorted, None dropped
    assert board["stations"] == {}


def test_a_new_game_is_checked_and_normalised() -> None:
    game = parse_new_game(
        {"players": [{"name": "  Aki ", "color": " RED"}, {"color": "blue"}]}, MAP
    )
    assert game == {
        "type": "new_game",
        "variant": "europe",
        "mode": "table",
        "payment_mode": "lenient",
        "tickets_tracked": True,
        "turn_needs_action": True,
        "auto_end": True,
        "players": [{"name": "Aki", "color": "red"}, {"name": "blue", "color": "blue"}],
    }
    # a turn ends by itself after its action unless the new game says otherwise; photo mode
    # has no turns
    assert parse_new_game({"players": PLAYERS, "auto_end": False}, MAP)["auto_end"] is False
    assert parse_new_game({"players": PLAYERS, "mode": "photo"}, MAP)["auto_end"] is False
    with pytest.raises(BadRequest, match="auto_end"):
        parse_new_game({"players": PLAYERS, "auto_end": "yes"}, MAP)
    with pytest.raises(Conflict) as few:
        parse_new_game({"players": PLAYERS[:1]}, MAP)
    assert few.value.status == 409 and few.value.rule == "player-count"
    with pytest.raises(Conflict) as same:
        parse_new_game({"players": [{"color": "red"}, {"color": "red"}]}, MAP)
    assert same.value.rule == "same-colour"
    with pytest.raises(BadRequest, match="40 characters"):
        parse_new_game({"players": [{"name": "x" * 41, "color": "red"}, {"color": "blue"}]}, MAP)


def test_another_games_actions_are_checked_by_that_game() -> None:
    london = game_kind("london")
    with pytest.raises(BadRequest) as refused:
        check_action_shape({"type": "claim_bus"}, MAP, london)
    assert refused.value.message.startswith(
        "Unknown Ticket to Ride: London action type 'claim_bus'"
    )
    assert "finish, keep_tickets, new_game" in refused.value.message  # the known types, listed
    assert check_action_shape({"type": "finish"}, MAP, london) == {"type": "finish"}
    with pytest.raises(BadRequest, match="table mode only"):
        check_action_shape(
            {"type": "new_game", "game": "london", "mode": "photo", "players": PLAYERS[:2]}, MAP
        )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("claim", "JSON object"),
        ({"kind": "smell"}, "unknown observation kind"),
        ({"kind": "claim_seen", "route": "berlin-wien"}, 'needs "color"'),
        ({"kind": "claim_seen", "route": "berlin-wien", "color": "teal"}, "unknown player colour"),
        ({"kind": "claim_seen", "route": "a", "color": "red", "unsure": 1}, "true or false"),
        ({"kind": "card_tapped", "card": "gold"}, ""),
        ({"kind": "button", "name": "explode"}, "unknown button"),
        ({"kind": "reader_player", "player": ""}, 'needs "player"'),
    ],
)
def test_malformed_observations_are_400(data: Any, message: str) -> None:
    with pytest.raises(BadRequest) as refused:
        check_observation(data)
    assert message in refused.value.message


def test_observations_come_back_trimmed_and_lower_case() -> None:
    seen = check_observation({"kind": "claim_seen", "route": " Berlin-Wien ", "color": "RED"})
    assert seen == {"kind": "claim_seen", "route": "berlin-wien", "color": "red"}
    unsure = check_observation(
        {"kind": "claim_seen", "route": "berlin-wien", "color": "red", "unsure": True}
    )
    assert unsure["unsure"] is True
    tap = check_observation({"kind": "card_tapped", "card": "Locomotive", "uid": "04AB"})
    assert tap["card"] == "locomotive" and tap["uid"] == "04ab"
    assert check_observation({"kind": "ticket_tapped", "ticket": "Paris-Wien"}) == {
        "kind": "ticket_tapped",
        "ticket": "paris-wien",
        "uid": None,
    }
    assert check_observation({"kind": "button", "name": "undo"}) == {
        "kind": "button",
        "name": "undo",
    }
