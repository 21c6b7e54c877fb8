"""The fitting sets of tools/fit_calibration.py keep to the game's rules (no colour over a
player's 45 trains, never one colour on both lanes of a game's double) where the check list's
``free-full`` kind rests on them."""

from __future__ import annotations

import numpy as np

from companion.sim.render import BoardRenderer
from companion.vision.types import PLAYER_COLORS
from tools.fit_calibration import full_board, scene_for, within_trains


def _trains(routes: dict[str, str], renderer: BoardRenderer) -> dict[str, int]:
    gb = renderer.geometry
    out = dict.fromkeys(PLAYER_COLORS, 0)
    for r, c in routes.items():
        out[c] += len(gb.routes[r].spaces)
    return out


def test_games_near_their_end_leave_each_colour_a_few_trains_at_most() -> None:
    renderer = BoardRenderer()
    gb = renderer.geometry
    for seed in range(5000, 5004):
        routes = full_board(np.random.default_rng(seed), renderer)
        n = _trains(routes, renderer)
        # a colour stops 0-3 short of its 45, or a little more when no free route fits
        assert all(38 <= v <= 45 for v in n.values()), n
        assert sum(v >= 42 for v in n.values()) >= 3, n
        own = sum(1 for r, c in routes.items() if gb.routes[r].color == c)
        assert own >= 10  # trains on their own print, the case free-full is about
        for r, c in routes.items():
            twin = gb.routes[r].twin
            assert twin is None or routes.get(twin) != c


def test_no_fitting_scene_has_a_colour_over_its_trains() -> None:
    renderer = BoardRenderer()
    rng = np.random.default_rng(5010)
    for k in range(10):
        sc = scene_for(rng, renderer, k)
        assert max(_trains(dict(sc.routes), renderer).values()) <= 45
    gb = renderer.geometry
    every = {r: "red" for r in gb.drawable_routes()}
    kept = within_trains(every, renderer)
    assert _trains(kept, renderer)["red"] == 45  # routes kept in board order up to 45
