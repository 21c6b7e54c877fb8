"""Photos decoded at the size the board needs (``companion/vision/reading/decode.py``): libjpeg's
scaled decoding picks the largest reduction that keeps the longer side, the JPEG's size is read
from its header without decoding, a reading survives the reduction, and bad bytes are refused."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.sim.render import BoardRenderer, random_scene
from companion.vision.decide.context import ReadContext
from companion.vision.reading.decode import (
    NotAnImage,
    decode_photo,
    jpeg_size,
    read_photo,
    reduction,
)
from companion.vision.reading.read import read_board


def _jpeg(image: np.ndarray, progressive: bool = False) -> bytes:
    params = [cv2.IMWRITE_JPEG_QUALITY, 90, cv2.IMWRITE_JPEG_PROGRESSIVE, int(progressive)]
    ok, buf = cv2.imencode(".jpg", image, params)
    assert ok
    return bytes(buf.tobytes())


@pytest.mark.parametrize("progressive", [False, True])
def test_the_size_comes_from_the_header(progressive: bool) -> None:
    img = np.random.default_rng(1).integers(0, 255, (300, 520, 3), dtype=np.uint8)
    assert jpeg_size(_jpeg(img, progressive)) == (520, 300)
    _, png = cv2.imencode(".png", img)
    assert jpeg_size(bytes(png.tobytes())) is None
    assert jpeg_size(b"\xff\xd8\xff") is None and jpeg_size(b"") is None


def test_the_largest_reduction_that_keeps_the_long_side() -> None:
    assert reduction((4032, 3024), 1600) == 2
    assert reduction((4032, 3024), 1000) == 4
    assert reduction((1920, 1080), 1600) == 1
    assert reduction((16000, 9000), 1600) == 8


def test_a_12_mp_photo_is_decoded_at_half_size() -> None:
    img = np.full((3024, 4032, 3), 128, np.uint8)
    cv2.circle(img, (2000, 1500), 800, (20, 200, 40), -1)
    got = decode_photo(_jpeg(img), cfg={"min_long_side": 1600})
    assert got.factor == 2 and got.image.shape == (1512, 2016, 3)
    full = decode_photo(_jpeg(img), full=True)
    assert full.factor == 1 and full.image.shape == img.shape
    small = cv2.resize(full.image, (2016, 1512), interpolation=cv2.INTER_AREA)
    assert float(np.abs(small.astype(int) - got.image.astype(int)).mean()) < 2.0


def test_bytes_that_are_no_image_are_refused() -> None:
    with pytest.raises(NotAnImage):
        decode_photo(b"\xff\xd8not a jpeg at all")
    with pytest.raises(NotAnImage):
        read_photo(b"hello")


def test_a_board_read_from_reduced_decoding_reads_as_from_full(ctx: ReadContext) -> None:
    """A rendered game 3,600 px wide as a JPEG: read from the reduced decoding (1,800 px) it
    reads the routes as from the full decoding."""
    renderer = BoardRenderer()
    scene = random_scene(np.random.default_rng(5), renderer.geometry, claimed=0.4, stations=4)
    board = renderer.render_board(scene, 3600)
    framed = cv2.copyMakeBorder(board, 200, 200, 200, 200, cv2.BORDER_CONSTANT, value=(60, 90, 120))
    data = _jpeg(framed)
    assert decode_photo(data).factor == 2
    reduced = read_photo(data, context=ctx)
    full = read_board(decode_photo(data, full=True).image, context=ctx)
    differ = [r for r in full.routes if full.routes[r] != reduced.routes[r]]
    assert len(differ) <= 1, differ
    wrong = [r for r, c in reduced.routes.items() if c != scene.routes.get(r)]
    assert set(wrong) <= set(reduced.check), wrong
