"""Fine registration on the printed spaces' outlines (companion.vision.locate.register), on boards
drawn by the tests themselves (no photos needed)."""

from __future__ import annotations

import numpy as np

from companion.vision.geometry.geometry import corners_homography, homography_corners
from companion.vision.locate.register import local_offsets, refine_registration


def _frame(w: int, h: int) -> np.ndarray:
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)


def test_a_board_located_a_little_off_is_moved_onto_its_spaces(drawing, ctx, drawn_owners) -> None:
    board = drawing.draw_board(ctx, size=(1500, 1000), owners=drawn_owners, seed=5)
    truth = _frame(1500, 1000)
    off = truth + np.array([[7.0, -5.0], [9.0, -3.0], [6.0, 4.0], [8.0, 2.0]])
    before = float(np.abs(off - truth).max())
    reg = refine_registration(board, corners_homography(off), ctx)
    after = float(np.abs(homography_corners(reg.homography) - truth).max())
    assert reg.inliers >= 100
    assert after < before / 2, (before, after)


def test_a_flat_board_in_place_needs_no_local_offsets(drawing, ctx, drawn_owners) -> None:
    board = drawing.draw_board(ctx, size=(1500, 1000), owners=drawn_owners, seed=6)
    found = local_offsets(board, corners_homography(_frame(1500, 1000)), ctx)
    assert found is not None and found.measured >= 100
    assert found.spaces.shape == (ctx.grids.spaces.shape[0], 2)
    assert found.cities.shape == (len(ctx.geometry.city_ids), 2)
    # within the measuring noise: nearly all zero, none more than a tenth of a box width
    assert np.mean(np.all(found.spaces == 0.0, axis=1)) > 0.8
    width = float(np.median([b.width for b in ctx.geometry.space_boxes()]))
    assert np.abs(found.spaces).max() < 0.1 * width


def test_a_board_shifted_in_one_region_gets_local_offsets_there(drawing, ctx, drawn_owners) -> None:
    """The right third of the picture slid down by 5 pixels (a board not lying flat): the spaces
    there get offsets pointing down, the others none."""
    board = drawing.draw_board(ctx, size=(1500, 1000), owners=drawn_owners, seed=7)
    bent = board.copy()
    bent[5:, 1000:] = board[:-5, 1000:]
    found = local_offsets(bent, corners_homography(_frame(1500, 1000)), ctx)
    assert found is not None
    u = np.array([b.u for b in ctx.geometry.space_boxes()])
    right = u > 0.75
    left = u < 0.55
    assert np.median(found.spaces[right, 1]) > 2.0 / 1000  # board v units: down
    assert np.abs(found.spaces[left]).max() < 1.0 / 1000


def test_the_live_reader_measures_local_offsets_once_per_board_position(
    drawing, ctx, drawn_owners, monkeypatch
) -> None:
    from companion.vision.live.live import VisionReader
    from companion.vision.live.sources import Frame
    from companion.vision.locate import register

    calls: list[int] = []
    real = register.local_offsets

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(register, "local_offsets", counted)
    board = drawing.draw_board(ctx, size=(1200, 800), owners=drawn_owners, seed=8)
    reader = VisionReader()
    here, moved = _frame(1200, 800), _frame(1200, 800) + 1.0
    for i, corners in enumerate([here, here, here, moved, moved]):
        reading = reader.read(Frame(board, float(i), i), corners)
        assert len(reading.routes) == 101
    assert len(calls) == 2  # the first frame, then once after the board moved
