"""tools/render_stats.py reads a board's features as the reader does: with the lane sides of
the double routes (the print's core taken off the other lane's trains)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tools.render_stats as rs
from companion.sim.render import BoardRenderer, View, random_scene
from companion.vision.decide.context import default_context


def test_space_stats_pass_the_lane_sides(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = default_context()
    renderer = BoardRenderer()
    rng = np.random.default_rng(4)
    scene = random_scene(rng, renderer.geometry, claimed=0.45, stations=0)
    image = renderer.render_frame(scene, View.top_down(900, renderer.geometry.aspect), rng).image
    seen: list[Any] = []
    real = rs.space_features_lab8

    def spy(*args: Any) -> Any:
        seen.append(args[4] if len(args) > 4 else None)
        return real(*args)

    monkeypatch.setattr(rs, "space_features_lab8", spy)
    told = rs.space_stats(image, ctx, None)
    assert len(seen) == 1 and seen[0] is ctx.info.lane_side
    assert np.count_nonzero(ctx.info.lane_side) > 0  # the map has double routes

    def blind(*args: Any) -> Any:
        return real(*args[:4])

    monkeypatch.setattr(rs, "space_features_lab8", blind)
    untold = rs.space_stats(image, ctx, None)
    assert told.keys() == untold.keys()
    assert any(  # the lane sides change what is read beside the other lane's trains
        not np.array_equal(np.asarray(told[g]), np.asarray(untold[g])) for g in told
    )
