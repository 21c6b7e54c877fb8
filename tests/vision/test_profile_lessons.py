"""A table profile's lessons (companion.vision.decide.profile): kept per route as sums so a
corrected or
undone claim's lesson comes out exactly, settled when a new game starts, saved and loaded (and a
version-1 profile still loads); a lesson far from its colour and nearer another is set aside."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.vision.decide import profile as prof
from companion.vision.decide.context import ReadContext


def empty_profile(n: int = 20) -> prof.TableProfile:
    look = np.random.default_rng(0).normal(50, 5, (n, 8))
    return prof.TableProfile("cam", look.copy(), look * look, 1)


def windows(centre: np.ndarray, m: int, spread: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.asarray(centre + rng.normal(0, spread, (m, 4)), dtype=np.float64)


def test_a_lesson_comes_out_exactly_and_a_new_game_settles_the_old(ctx: ReadContext) -> None:
    p = empty_profile()
    red = ctx.model.plastic["red"]
    p.learn_route("a-b", "red", windows(red, 3, 2.0, 1), "g1")
    before = p.sums("red").copy()
    plastic_before = p.plastic["red"].copy()
    p.learn_route("c-d", "red", windows(red + 5, 4, 2.0, 2), "g1")
    assert p.plastic_count == {"red": 7} and set(p.lessons) == {"a-b", "c-d"}
    assert p.unlearn("c-d", "g1") == "red"
    assert np.array_equal(p.sums("red"), before)
    assert np.array_equal(p.plastic["red"], plastic_before) and p.plastic_count == {"red": 3}
    assert p.unlearn("c-d", "g1") is None  # nothing left to take out
    assert p.unlearn("a-b", "g0") is None and p.plastic_count == {"red": 3}  # another game's
    # a route learnt again replaces its lesson
    p.learn_route("a-b", "blue", windows(ctx.model.plastic["blue"], 3, 2.0, 3), "g1")
    assert p.plastic_count == {"blue": 3} and p.lessons["a-b"][0] == "blue"
    # the next game's first lesson settles this game's: they can no longer be taken out
    p.learn_route("e-f", "red", windows(red, 2, 2.0, 4), "g2")
    assert p.game == "g2" and set(p.lessons) == {"e-f"}
    assert p.unlearn("a-b", "g1") is None and p.unlearn("a-b", "g2") is None
    assert p.plastic_count == {"blue": 3, "red": 2}
    # the spread of a colour: the root of its windows' summed variance, in scaled units
    w = windows(red, 50, 3.0, 5)
    q = empty_profile()
    q.add_trains("red", w)
    var = np.var(w, axis=0)
    assert q.spread("red", ctx.model.scale) == pytest.approx(
        float(np.sqrt(np.sum(var / ctx.model.scale**2)))
    )
    assert q.spread("green", ctx.model.scale) == 0.0


def test_saved_exactly_and_a_version_1_profile_still_loads(
    ctx: ReadContext, tmp_path: Path
) -> None:
    p = empty_profile()
    p.learn_route("a-b", "red", windows(ctx.model.plastic["red"], 3, 2.0, 1), "g1")
    p.add_trains("black", windows(ctx.model.plastic["black"], 5, 2.0, 2))
    p.set_aside = {"black": 2}
    path = tmp_path / "p.json"
    prof.save(p, path)
    back = prof.load(path)
    assert back.game == "g1" and back.set_aside == {"black": 2}
    for c in ("red", "black"):
        assert np.array_equal(back.sums(c), p.sums(c))  # the sums go through JSON exactly
    assert back.unlearn("a-b", "g1") == "red" and back.plastic_count == {"black": 5}
    # version 1: colours as means and counts, learnt as sums with no spread
    data = json.loads(path.read_text("utf-8"))
    old = {k: v for k, v in data.items() if k not in ("settled", "lessons", "game", "set_aside")}
    old.update(
        version=1,
        plastic={"red": [50.0, 40.0, 20.0, 8.0]},
        plastic_count={"red": 6},
    )
    path.write_text(json.dumps(old), encoding="utf-8")
    v1 = prof.load(path)
    assert v1.plastic_count == {"red": 6} and np.allclose(v1.plastic["red"], [50, 40, 20, 8])
    assert v1.lessons == {} and v1.game is None and v1.set_aside == {}
    assert v1.spread("red", ctx.model.scale) == pytest.approx(0.0, abs=1e-6)
    prof.save(v1, path)
    assert json.loads(path.read_text("utf-8"))["version"] == prof.VERSION == 2
    path.write_text(json.dumps({**old, "version": 3}), encoding="utf-8")
    with pytest.raises(ValueError):
        prof.load(path)


def test_a_lesson_far_from_its_colour_and_near_another_is_set_aside(ctx: ReadContext) -> None:
    base = ctx.model
    guard = prof.Guard(min_spaces=6, spread_times=3.0, spread_floor=1.0)
    black, blue = base.plastic["black"], base.plastic["blue"]
    p = empty_profile()
    empty = p.empty[:4]
    # too few spaces yet: anything is learnt
    p.learn_route("a-b", "black", windows(black, 4, 1.0, 1), "g")
    assert p.odd_lesson("black", windows(blue, 4, 1.0, 2), empty, base, guard) is None
    p.learn_route("c-d", "black", windows(black, 4, 1.0, 3), "g")
    # blue's trains taught as black: set aside, they look like blue
    assert p.odd_lesson("black", windows(blue, 4, 1.0, 4), empty, base, guard) == "blue"
    # black's own trains, a little off: learnt
    assert p.odd_lesson("black", windows(black + 2.0, 4, 1.0, 5), empty, base, guard) is None
    # windows that look like the empty board: set aside as such
    board = np.tile(empty.mean(axis=0)[:4], (4, 1))
    p.empty[:4, :4] = board
    assert p.odd_lesson("black", board, p.empty[:4], base, guard) == "board"
    # far from black, but nearer black than any other colour or the board: learnt
    odd = black + np.array([-1.0, 0.0, 0.0, 0.0]) * base.scale * 4
    others = {c: float(np.linalg.norm((odd - v) / base.scale)) for c, v in base.plastic.items()}
    assert min(others, key=lambda c: others[c]) == "black" and others["black"] > 3.0
    far_board = np.full_like(empty, 1e3)
    assert p.odd_lesson("black", np.tile(odd, (4, 1)), far_board, base, guard) is None
