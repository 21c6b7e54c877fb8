"""``own_print.from_reading`` on the inputs of its last call gives that call's result again
(``classify_spaces``'s rounds often leave the reading as it was): the very arrays learning anew
gives, and a changed reading is learnt anew."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from companion.vision.decide import own_print
from companion.vision.decide.adapt import own_print_features
from companion.vision.decide.classify import clip_cues, space_features_lab8
from companion.vision.decide.context import ReadContext
from companion.vision.features.relief import with_relief


def _inputs(ctx: ReadContext, seed: int) -> tuple[Any, ...]:
    """Seeded features of every space and a reading of them (trains, print, hypotheses)."""
    rng = np.random.default_rng(seed)
    info, model = ctx.info, ctx.model
    n = len(info.printed_colors)
    lo = ctx.layout
    base = rng.integers(0, 256, (n, 1, 1, 3))
    lab = np.clip(base + rng.normal(0, 12, (n, lo.ny, lo.nx, 3)), 0, 255).astype(np.uint8)
    feats = space_features_lab8(lab, lo, ctx.windows, info.tunnel, info.lane_side)
    cues = with_relief(clip_cues(feats.cues, model), feats.relief)
    x = own_print_features(feats.printed, cues, model.scale, model.own_print_columns)
    own = info.own_colour
    got = rng.integers(0, 6, int(info.space_route.max()) + 1)[info.space_route]
    sure_free = (got == 0) & (rng.uniform(size=n) < 0.8)
    trains = np.where((got > 0) & (own != got - 1), got - 1, -1)
    prints = np.where(sure_free & (own >= 0), own, -1)
    return feats.printed, cues, model, info, (trains, prints, got, sure_free), x


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return all(np.array_equal(u, v, equal_nan=True) for u, v in zip(a, b, strict=True))


def _count_learning(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time ``from_reading`` learns anew."""
    calls: list[int] = []
    anew = own_print._from_reading

    def counted(*args: Any) -> Any:
        calls.append(1)
        return anew(*args)

    monkeypatch.setattr(own_print, "_from_reading", counted)
    return calls


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_same_call_again_gives_the_same_result_without_learning(
    ctx: ReadContext, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    printed, cues, model, info, seen, x = _inputs(ctx, seed)
    fresh = own_print._from_reading(printed, cues, model, info, seen, x)
    calls = _count_learning(monkeypatch)
    first = own_print.from_reading(printed, cues, model, info, seen, x)
    copies = tuple(a.copy() for a in seen)
    again = own_print.from_reading(printed, cues.copy(), model, info, copies, x)
    assert len(calls) == 1
    assert _same(first, fresh) and _same(again, fresh)
    again[0][:] = 0.0  # a copy: changing it changes no later result
    assert _same(own_print.from_reading(printed, cues, model, info, seen, x), fresh)
    assert len(calls) == 1


def test_a_changed_reading_or_changed_features_are_learnt_anew(
    ctx: ReadContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    printed, cues, model, info, seen, x = _inputs(ctx, 3)
    anew = own_print._from_reading  # learns anew, uncounted
    calls = _count_learning(monkeypatch)
    own_print.from_reading(printed, cues, model, info, seen, x)
    trains, prints, got, sure_free = seen
    other = (trains, prints, got, ~sure_free)
    changed = own_print.from_reading(printed, cues, model, info, other, x)
    assert len(calls) == 2
    assert _same(changed, anew(printed, cues, model, info, other, x))
    x2 = x.copy()
    x2[0, 0] += 1.0
    own_print.from_reading(printed, cues, model, info, other, x2)  # another x: anew
    x2[1, 0] += 1.0  # the same x changed in place: anew
    own_print.from_reading(printed, cues, model, info, other, x2)
    cues2 = cues + 0.5
    own_print.from_reading(printed, cues2, model, info, other, x2)
    assert len(calls) == 5
    own_print.from_reading(printed, cues, model, info, other, None)  # no x: always anew
    own_print.from_reading(printed, cues, model, info, other, None)
    assert len(calls) == 7
