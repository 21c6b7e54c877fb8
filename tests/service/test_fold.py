"""The fold (events -> game), tested directly: no thread, no store, no web app."""

from __future__ import annotations

import pytest

from companion.core.errors import IllegalActionError
from companion.service.fold import (
    GameFold,
    OtherFold,
    apply_step,
    effective_steps,
    fold_colors,
    fold_game,
    fold_game_name,
    fold_winners,
    strict_fold,
)
from companion.service.shapes import check_action_shape
from companion.store import Event
from tests.service.pure_games import MAP, claim, end_turn, europe, events


def test_a_game_must_start_with_new_game() -> None:
    with pytest.raises(ValueError, match="start with new_game"):
        fold_game(events()[1:], MAP)
    with pytest.raises(ValueError):
        fold_game([], MAP)


def test_the_fold_replays_the_steps_in_order() -> None:
    fold = europe(claim("red", "berlin-wien"), end_turn("red"), claim("blue", "munchen-wien"))
    assert fold.tracker.route_owner == {"berlin-wien": "red", "munchen-wien": "blue"}
    assert fold.seq == 7 and [s.seq for s in fold.steps] == [2, 3, 4, 5, 6, 7]
    assert fold.tracker.current_player.color == "blue"
    assert fold.last is not None and fold.last["seq"] == 7 and fold.last["type"] == "claim"
    assert fold_colors(fold) == ["red", "blue", "green"]
    assert fold_game_name(fold) == "europe" and fold_game_name(None) is None
    assert fold_winners(fold) == [] and not fold.finished


def test_undo_redo_and_replace_change_which_steps_count() -> None:
    log = events(claim("red", "berlin-wien"))
    undo = Event(6, "g1", 6.0, "host", {"type": "undo", "seq": 5})
    undone = fold_game([*log, undo], MAP)
    assert isinstance(undone, GameFold)
    assert undone.tracker.route_owner == {}
    assert undone.step(5) is not None and undone.step(5).effective is None  # type: ignore[union-attr]
    assert undone.seq == 6 and undone.last is not None and undone.last["text"] == "undo #5"
    redo = Event(7, "g1", 7.0, "host", {"type": "redo", "seq": 5})
    again = fold_game([*log, undo, redo], MAP)
    assert isinstance(again, GameFold) and again.tracker.route_owner == {"berlin-wien": "red"}
    fix = Event(
        8, "g1", 8.0, "host", {"type": "replace", "seq": 5, "action": claim("red", "munchen-wien")}
    )
    fixed = fold_game([*log, undo, redo, fix], MAP)
    assert isinstance(fixed, GameFold) and fixed.tracker.route_owner == {"munchen-wien": "red"}
    assert fixed.step(5).effective == claim("red", "munchen-wien")  # type: ignore[union-attr]


def test_a_correction_of_an_unknown_event_is_reported_not_applied() -> None:
    log = events(claim("red", "berlin-wien"))
    steps, problems = effective_steps(
        [*log, Event(6, "g1", 6.0, "host", {"type": "undo", "seq": 99})]
    )
    assert problems == ["event 6 corrects an unknown event"]
    assert all(s.effective is not None for s in steps)


def test_a_step_that_no_longer_applies_is_skipped_in_a_replay() -> None:
    # Two claims of the same route in the log (written by other rules): the second is skipped.
    log = events(claim("red", "berlin-wien"), end_turn("red"))
    bad = Event(7, "g1", 7.0, "host", claim("blue", "berlin-wien"))
    fold = fold_game([*log, bad], MAP)
    assert isinstance(fold, GameFold)
    assert fold.tracker.route_owner == {"berlin-wien": "red"}
    assert fold.step(7).effective is None  # type: ignore[union-attr]
    assert len(fold.skipped) == 1 and fold.skipped[0].startswith("event 7 was skipped")


def test_strict_fold_names_the_step_a_correction_would_break() -> None:
    log = events(claim("red", "berlin-wien"), end_turn("red"), claim("blue", "munchen-wien"))
    # Replacing red's claim by munchen-wien would make blue's later claim of it illegal.
    fix = Event(
        0, "g1", 0.0, "host", {"type": "replace", "seq": 5, "action": claim("red", "munchen-wien")}
    )
    with pytest.raises(IllegalActionError, match=r"step #7 \(.*\) illegal"):
        strict_fold([*log, fix], MAP)
    assert isinstance(strict_fold(log, MAP), GameFold)


def test_apply_step_leaves_the_fold_unchanged_when_refused() -> None:
    fold = europe(claim("red", "berlin-wien"))
    before = fold.tracker.to_json()
    with pytest.raises(IllegalActionError):
        apply_step(fold, claim("red", "munchen-wien"))  # red already acted this turn
    assert fold.tracker.to_json() == before
    assert apply_step(fold, {"type": "finish"}) == [] and fold.finished
    with pytest.raises(IllegalActionError, match="finished"):
        apply_step(fold, {"type": "finish"})
    with pytest.raises(IllegalActionError, match="undo the finish"):
        apply_step(fold, end_turn("red"))


def test_set_board_gives_routes_only_to_players_of_the_game() -> None:
    fold = europe()
    board = check_action_shape(
        {"type": "set_board", "routes": {"berlin-wien": "yellow"}, "stations": {}}, MAP
    )
    with pytest.raises(IllegalActionError) as refused:
        apply_step(fold, board)
    assert refused.value.rule == "unknown-player"
    ok = check_action_shape(
        {"type": "set_board", "routes": {"berlin-wien": "red"}, "stations": {"wien": "blue"}}, MAP
    )
    apply_step(fold, ok)
    assert fold.tracker.route_owner == {"berlin-wien": "red"}
    assert fold.tracker.player("red").trains == MAP.trains_per_player - 3


def test_another_game_folds_onto_its_own_table() -> None:
    start = check_action_shape(
        {
            "type": "new_game",
            "game": "london",
            "players": [{"name": "A", "color": "red"}, {"name": "B", "color": "blue"}],
        },
        MAP,
    )
    fold = fold_game([Event(1, "g2", 1.0, "host", start)], MAP)
    assert isinstance(fold, OtherFold)
    assert fold.game == "london" and fold_game_name(fold) == "london"
    assert fold_colors(fold) == ["red", "blue"] and fold.steps == []
    assert fold.series and fold.series[0]["turn"] == 0
