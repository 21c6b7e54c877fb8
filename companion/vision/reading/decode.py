"""Decoding a photo at the size the board needs (libjpeg's scaled decoding).

A 12 MP phone photo decoded in full costs more than reading the board in it, and the reader
never looks at it at full size: it averages blocks of the picture down to about 1.5 picture
pixels per sampled pixel (``sample.prefilter_step``), and locating works on a copy about
1,000 px wide. libjpeg can decode a JPEG at 1/2, 1/4 or 1/8 of its size for a fraction of
the cost (it skips most of the inverse DCT): ``decode_photo`` picks the largest of those
reductions that keeps the picture's longer side at least ``decode.min_long_side`` pixels
(``data/vision.json``) and decodes at it. Other formats (PNG) are decoded as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import cv2
import numpy as np

from companion.vision.decide.classify import load_vision_config
from companion.vision.features.sample import U8Array

_REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4}
_REDUCED[8] = cv2.IMREAD_REDUCED_COLOR_8
# Start-of-frame markers (baseline, progressive, ...): not DHT (C4), JPG (C8) or DAC (CC).
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


@cache
def decode_config() -> dict[str, Any]:
    data: dict[str, Any] = load_vision_config()["decode"]
    return data


class NotAnImage(ValueError):
    """The bytes are not a picture OpenCV can decode."""


@dataclass(frozen=True)
class Decoded:
    image: U8Array  # BGR
    factor: int  # the photo's pixels per decoded pixel along each side (1, 2, 4 or 8)


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's frame header, without decoding; None if not a JPEG (or
    none can be found)."""
    if len(data) < 4 or data[0] != 0xFF or data[1] != 0xD8:
        return None
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if marker in _SOF and i + 9 <= n:
            h = int.from_bytes(data[i + 5 : i + 7], "big")
            w = int.from_bytes(data[i + 7 : i + 9], "big")
            return (w, h) if w > 0 and h > 0 else None
        if length < 2:
            return None
        i += 2 + length
    return None


def reduction(size: tuple[int, int], min_long_side: int) -> int:
    """The largest of 1, 2, 4, 8 that keeps the longer side at least ``min_long_side``."""
    long_side = max(size)
    factor = 1
    for f in (2, 4, 8):
        if long_side // f >= min_long_side:
            factor = f
    return factor


def decode_photo(data: bytes, *, full: bool = False, cfg: dict[str, Any] | None = None) -> Decoded:
    """Decode an uploaded photo (JPEG or PNG) at the size the board needs (``full``: at its
    own size). ``NotAnImage`` when the bytes are not an image."""
    buf = np.frombuffer(data, dtype=np.uint8)
    size = None if full else jpeg_size(data)
    factor = 1
    if size is not None:
        c = cfg if cfg is not None else decode_config()
        factor = reduction(size, int(c["min_long_side"]))
    image = cv2.imdecode(buf, _REDUCED[factor])
    if image is None:
        raise NotAnImage("not a JPEG or PNG image")
    return Decoded(np.asarray(image, dtype=np.uint8), factor)


def read_photo(data: bytes, *, context: Any = None) -> Any:
    """Decode a photo at the size the board needs and read it (a ``types.BoardReading``);
    a board not found at the reduced size is looked for once more at full size.
    ``NotAnImage`` when the bytes are not an image; ``types.NoBoardError`` when no board is
    found."""
    from companion.vision.reading.read import read_board
    from companion.vision.types import NoBoardError

    decoded = decode_photo(data)
    try:
        return read_board(decoded.image, context=context)
    except NoBoardError:
        if decoded.factor == 1:
            raise
    return read_board(decode_photo(data, full=True).image, context=context)
