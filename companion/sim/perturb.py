"""What other cameras and rooms do to a photo of the board, as image transforms.

We have four real photos of one board from one camera. A player's phone sees the board in
another light, through another tone curve and colour processing, at another size, turned in the
frame. These transforms change a photo the way those do, so that the reader's accuracy can be
measured on them (benchmarks/bench_vision_read.py) and held by tests: a reader tuned to one
camera's look would fail here first. Each is deterministic (seeded where noise enters).
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]


def channel_gains(img: Image, gains: tuple[float, float, float]) -> Image:
    """Light of another colour or strength (B, G, R gains)."""
    out = img.astype(np.float32) * np.array(gains, dtype=np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def gamma(img: Image, g: float) -> Image:
    """Another tone curve (values ** g on 0..1)."""
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** g + 0.5, 0, 255).astype(np.uint8)
    return np.asarray(cv2.LUT(img, lut), dtype=np.uint8)


def saturation(img: Image, s: float) -> Image:
    """Duller or more vivid colour processing (HSV saturation times ``s``)."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] *= s
    return np.asarray(cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR))


def jpeg(img: Image, quality: int) -> Image:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), dtype=np.uint8)


def resize_width(img: Image, width: int) -> Image:
    f = width / img.shape[1]
    return np.asarray(cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA))


def blur(img: Image, sigma: float) -> Image:
    return np.asarray(cv2.GaussianBlur(img, (0, 0), sigma), dtype=np.uint8)


def noise(img: Image, sigma: float, seed: int = 1) -> Image:
    rng = np.random.default_rng(seed)
    return np.clip(img + rng.normal(0, sigma, img.shape), 0, 255).astype(np.uint8)


def light_gradient(img: Image, darkest: float) -> Image:
    """A lamp to one side: brightness falling linearly to ``darkest`` across the picture."""
    g = np.linspace(darkest, 1.0, img.shape[1], dtype=np.float32)[None, :, None]
    return np.asarray(np.clip(img * g, 0, 255), dtype=np.uint8)


def vignette(img: Image, strength: float) -> Image:
    """A lens darkening the corners (by ``strength`` at the corners)."""
    h, w = img.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((x - w / 2) / (w / 2)) ** 2 + ((y - h / 2) / (h / 2)) ** 2
    return np.asarray(np.clip(img * (1 - strength * r2 / 2)[..., None], 0, 255), dtype=np.uint8)


def turned(img: Image, degrees: float, scale: float = 0.8) -> Image:
    """The board turned in the frame and smaller, a table colour around it."""
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, scale)
    return np.asarray(cv2.warpAffine(img, m, (w, h), borderValue=(90, 110, 130)))


def lens(img: Image, k1: float) -> Image:
    """A lens's radial distortion left in the picture (k1 < 0 barrel, > 0 pincushion; the
    displacement at the frame's corners is k1 of the half-diagonal), the board a little
    smaller in the frame so that none of it leaves the picture."""
    img = turned(img, 0.0, 0.85)
    h, w = img.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy, r0 = w / 2, h / 2, float(np.hypot(w / 2, h / 2))
    dx, dy = (x - cx) / r0, (y - cy) / r0
    f = 1 + k1 * (dx * dx + dy * dy)
    mx, my = cx + dx * f * r0, cy + dy * f * r0
    return np.asarray(
        cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderValue=(90, 110, 130)), dtype=np.uint8
    )


CAMERA_VARIATIONS: dict[str, Callable[[Image], Image]] = {
    "warm light": lambda i: channel_gains(i, (0.75, 0.95, 1.2)),
    "cool light": lambda i: channel_gains(i, (1.2, 1.0, 0.85)),
    "dark (x0.55)": lambda i: channel_gains(i, (0.55, 0.55, 0.55)),
    "bright (x1.3)": lambda i: channel_gains(i, (1.3, 1.3, 1.3)),
    "gamma 0.7": lambda i: gamma(i, 0.7),
    "gamma 1.4": lambda i: gamma(i, 1.4),
    "saturation x0.7": lambda i: saturation(i, 0.7),
    "saturation x1.3": lambda i: saturation(i, 1.3),
    "JPEG quality 35": lambda i: jpeg(i, 35),
    "2000 px wide": lambda i: resize_width(i, 2000),
    "1400 px wide": lambda i: resize_width(i, 1400),
    "1000 px wide": lambda i: resize_width(i, 1000),
    "blur sigma 2": lambda i: blur(i, 2.0),
    "noise sigma 8": lambda i: noise(i, 8.0),
    "lamp to one side": lambda i: light_gradient(i, 0.6),
    "vignette": lambda i: vignette(i, 0.5),
    "turned 7 degrees": lambda i: turned(i, 7.0),
    "turned -12 degrees": lambda i: turned(i, -12.0),
    "lens barrel 3 %": lambda i: lens(i, -0.03),
    "lens pincushion 3 %": lambda i: lens(i, 0.03),
}
