"""check.assess counts a colour's trains once, from the layout (``trains_read``, as the
calibration's ``room_left``): the too-many-trains problem does not depend on the route lengths
a caller passes, and the count is the geometry's route lengths summed."""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.vision.decide.check import CheckConfig, assess, room_left, trains_read
from companion.vision.decide.classify import HYPOTHESES
from companion.vision.decide.context import ReadContext


def test_trains_read_are_the_route_lengths_summed_per_colour(ctx: ReadContext) -> None:
    g, info = ctx.geometry, ctx.info
    rng = np.random.default_rng(3)
    choice = rng.integers(0, len(HYPOTHESES), len(info.route_ids))
    used = trains_read(choice, info)
    for h, name in enumerate(HYPOTHESES):
        want = sum(g.routes[r].length for k, r in enumerate(info.route_ids) if choice[k] == h)
        assert used[h] == want, name
    own = np.asarray(info.own_colour)[info.route_starts] + 1
    length = np.array([g.routes[r].length for r in info.route_ids])
    left = room_left(choice, info, 45)
    mine = own > 0
    assert np.array_equal(left[mine], 45 - used[own[mine]] - length[mine])


def test_too_many_trains_are_counted_from_the_layout(ctx: ReadContext, free_reading: Any) -> None:
    g, info = ctx.geometry, ctx.info
    n = len(info.printed_colors)
    s = np.zeros((n, len(HYPOTHESES)))
    s[:, 0] = 10.0
    second_lanes = {b for _, b in info.lane_pairs}
    red = HYPOTHESES.index("red")
    total = 0
    for r in g.route_ids:
        if total > 50:
            break
        if r not in second_lanes:
            sl = info.route_slices[r]
            s[sl] = 0.0
            s[sl, red] = 10.0
            total += g.routes[r].length
    reading = free_reading(ctx, 0.99)
    lengths = {r: g.routes[r].length for r in g.route_ids}
    cfg = CheckConfig.load()
    given = assess(reading, s, info, ctx.model, lengths, cfg)
    none = assess(reading, s, info, ctx.model, {}, cfg)  # the lengths passed are not read
    assert given.to_json() == none.to_json()
    (problem,) = [p for p in given.problems if p["code"] == "too-many-trains"]
    assert problem["color"] == "red" and problem["count"] == total
    covered = sum(g.routes[r].length for r in problem["ids"])
    assert covered >= total - cfg.trains_per_player  # the least sure, until the excess is covered
