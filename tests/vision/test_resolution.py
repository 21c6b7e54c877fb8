"""Every reading knows its limits (``companion/vision/decide/resolution.py``): a picture too
small or
too blurred for the reader says so in ``problems`` and lists every route whose colour it cannot
settle; a picture large enough says nothing of the kind."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from companion.sim.perturb import jpeg, resize_width
from companion.sim.render import BoardRenderer, random_scene
from companion.vision.decide.context import ReadContext
from companion.vision.decide.resolution import (
    Resolution,
    patch_blur,
    resolution_config,
    unsettled,
)
from companion.vision.locate.locate import BoardLocation
from companion.vision.reading.read import read_board
from companion.vision.types import BoardReading


@pytest.fixture(scope="module")
def game() -> tuple[Any, np.ndarray]:
    renderer = BoardRenderer()
    scene = random_scene(np.random.default_rng(600), renderer.geometry, claimed=0.6, stations=8)
    return scene, renderer.render_board(scene, 2400)


def _read(image: np.ndarray, ctx: ReadContext) -> BoardReading:
    h, w = image.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    return read_board(image, location=BoardLocation.from_corners(corners, (w, h)), context=ctx)


def _low(reading: BoardReading) -> list[dict[str, Any]]:
    return [p for p in reading.problems if p["code"] == "low-resolution"]


def test_blur_is_measured_as_the_blur_added() -> None:
    """Steps along the track blurred by a known sigma measure about that sigma, and more blur
    always measures more."""
    x = np.zeros((50, 20, 60), np.float32)
    x[..., 30:] = 200.0
    got = []
    for sigma in (1.0, 2.0, 3.0):
        flat = x.reshape(-1, 60)
        blurred = cv2.GaussianBlur(flat, (0, 0), sigmaX=sigma, sigmaY=0.01)
        got.append(patch_blur(blurred.reshape(x.shape)))
    assert got == sorted(got)
    assert abs(got[1] - 2.0) < 0.5, got


def test_a_large_sharp_picture_has_no_resolution_problem(
    game: tuple[Any, np.ndarray], ctx: ReadContext
) -> None:
    _, board = game
    reading = _read(jpeg(resize_width(board, 1400), 85), ctx)
    assert _low(reading) == []


@pytest.mark.parametrize(("width", "sigma"), [(500, 0.0), (1000, 5.0)])
def test_a_small_or_blurred_picture_says_so_and_lists_what_it_cannot_settle(
    game: tuple[Any, np.ndarray], ctx: ReadContext, width: int, sigma: float
) -> None:
    """A 500 px board, or a 1,000 px one out of focus: the problem with its figures, every
    route read blue or black and every route on its own print on the check list, every wrong
    reading listed."""
    scene, board = game
    small = resize_width(board, width)
    if sigma:
        small = cv2.GaussianBlur(small, (0, 0), sigma)
    reading = _read(jpeg(small, 85), ctx)
    low = _low(reading)
    assert len(low) == 1, reading.problems
    need = float(resolution_config()["min_space_px"])
    assert low[0]["count"] < need and low[0]["needed"] == need
    assert low[0]["space_px"] == pytest.approx(width * 0.034, rel=0.1)
    assert set(low[0]["ids"]) <= set(reading.check)
    dark = [r for r, c in reading.routes.items() if c in ("blue", "black")]
    assert dark and set(dark) <= set(low[0]["ids"])
    wrong = [r for r, c in reading.routes.items() if c != scene.routes.get(r)]
    assert set(wrong) <= set(reading.check)
    assert "closer" in low[0]["text"]


def test_unsettled_routes() -> None:
    routes = {"a-b": "blue", "b-c": None, "c-d": "red", "d-e": "green", "e-f": None}
    printed = {"a-b": "white", "b-c": "red", "c-d": "red", "d-e": "red", "e-f": "orange"}
    assert unsettled(routes, printed, {"merging": ["blue", "black"]}) == ["a-b", "b-c", "c-d"]


def test_effective_resolution_counts_blur() -> None:
    sharp = float(resolution_config()["sharp_share"]) * 40.0  # picture px at 40 px a space
    assert Resolution(40.0, sharp).effective == 40.0
    assert Resolution(40.0, 2 * sharp).effective == pytest.approx(20.0)
    assert Resolution(40.0, 4 * sharp).too_low()
    # what counts is the share of a space the edges smear: 5 px of blur on 120 px spaces
    # does not hinder (it did when 1.5 px was sharp whatever the spaces' size)
    assert Resolution(120.0, 5.0).effective == 120.0


def test_the_blur_figure_means_the_same_at_any_decode_scale(
    game: tuple[Any, np.ndarray], ctx: ReadContext
) -> None:
    """A phone photo out of focus, decoded in full and at half and a quarter of its size
    (libjpeg's scaled decoding, as photo mode decodes): the blur in pixels halves with the
    scale, its share of a train space does not; a sharper photo measures less."""
    from companion.vision.decide.context import take_samples
    from companion.vision.decide.resolution import measure
    from companion.vision.reading.decode import decode_photo

    _, board = game
    h, w = board.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    loc = BoardLocation.from_corners(corners, (w, h))

    def figures(image: np.ndarray) -> list[Any]:
        data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
        out = []
        for full, factor in ((True, 1), (False, 2), (False, 4)):
            cfg = {"min_long_side": w // factor}
            decoded = decode_photo(data, full=full, cfg=cfg)
            assert decoded.factor == factor
            size = (decoded.image.shape[1], decoded.image.shape[0])
            s = take_samples(decoded.image, loc.scaled(size).homography, ctx)
            assert s.space_px is not None and s.spaces_lab is not None
            out.append(measure(s.space_px, s.spaces_lab[..., 0], int(s.spaces_lab.shape[2])))
        return out

    soft = figures(cv2.GaussianBlur(board, (0, 0), 6.0))
    assert soft[1].blur == pytest.approx(soft[0].blur / 2, rel=0.1)
    shares = [r.blur_share for r in soft]
    assert max(shares) < 1.1 * min(shares), shares
    sharp = figures(board)
    assert all(a.blur_share < 0.8 * b.blur_share for a, b in zip(sharp, soft, strict=True))


def test_the_host_is_told_in_words_in_both_catalogues() -> None:
    """Photo mode shows ``photo.problem.low-resolution`` with the figure (``{n}``)."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for lang, word in (("ja", "近く"), ("en", "closer")):
        catalogue = json.loads((root / "web/static/i18n" / f"{lang}.json").read_text("utf-8"))
        text = catalogue["photo.problem.low-resolution"]
        assert "{n}" in text and word in text


def test_vision_read_json_carries_the_resolution_problem(
    game: tuple[Any, np.ndarray], tmp_path: Any, capsys: Any
) -> None:
    """`companion vision read --json` of a board 560 px wide (framed by a table, located):
    the problem with its figures; the routes it names are on the check list."""
    import json

    from companion.cli import main

    _, board = game
    small = resize_width(board, 560)
    framed = cv2.copyMakeBorder(small, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(60, 90, 120))
    path = tmp_path / "small.jpg"
    cv2.imwrite(str(path), framed, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert main(["vision", "read", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    low = [p for p in out["problems"] if p["code"] == "low-resolution"]
    assert len(low) == 1 and low[0]["count"] < low[0]["needed"]
    assert low[0]["space_px"] < 24 and low[0]["blur"] > 0
    assert low[0]["blur_share"] == pytest.approx(low[0]["blur"] / low[0]["space_px"], rel=0.05)
    assert set(low[0]["ids"]) <= set(out["check"])
