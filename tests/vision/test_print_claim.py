"""print_claim.py: a claim of a route's own printed colour whose patches look like print."""

from __future__ import annotations

import pytest

from companion.sim.perturb import jpeg, resize_width
from companion.sim.render import BoardRenderer, own_print_game
from companion.vision.decide.context import ReadContext
from companion.vision.decide.print_claim import RULE, print_claim_config
from tests.vision_reading import read_whole


def test_the_rule_is_on() -> None:
    cfg = print_claim_config()
    assert cfg.min_spaces == 3
    assert cfg.max_below <= 0.0 and cfg.mean_below < cfg.max_below


@pytest.mark.parametrize(
    ("seed", "width", "route"),
    [(17605, 1100, "smolensk-wilno"), (16382, 1300, "madrid-pamplona-1")],
)
def test_free_print_read_as_its_colour_is_listed(
    ctx: ReadContext, renderer: BoardRenderer, seed: int, width: int, route: str
) -> None:
    """Own-print tuning games as ``tools/count_stats.py own`` makes them: ``route`` is free, and
    was read as trains of its printed colour at calibrated 0.995, not listed (yellow
    Smolensk-Wilno; black Madrid-Pamplona-1 beside the other lane's blue trains). Every wrong
    route is now on the check list, and a claim of ``route`` by this rule."""
    gb = renderer.geometry
    scene = own_print_game(seed, gb, 0.5)
    assert route not in scene.routes
    reading = read_whole(jpeg(resize_width(renderer.render_board(scene, 2400), width), 85), ctx)
    wrong = [r for r in gb.drawable_routes() if reading.routes.get(r) != scene.routes.get(r)]
    assert all(r in reading.check for r in wrong), wrong
    if reading.routes[route] is not None:
        assert reading.routes[route] == gb.routes[route].color
        assert RULE in reading.why[route]
    # every claim the rule lists is one of its route's own printed colour
    for rid, rules in reading.why.items():
        if RULE in rules:
            assert reading.routes[rid] == gb.routes[rid].color
