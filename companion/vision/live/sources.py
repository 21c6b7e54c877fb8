"""Where camera frames come from: a small interface and its backends.

``open_source(spec)`` turns the ``--source`` text into a :class:`FrameSource`:

- ``picamera2`` (or ``picamera2:1920x1080``): the Raspberry Pi camera, imported lazily;
- ``v4l2:/dev/video0`` (or ``v4l2:0``, ``v4l2:/dev/video0@1280x720``): a USB camera through OpenCV;
- ``file:PATH``: a video file, one image, a folder of images or an image glob
  (``file:shots/*.png``);
- ``sim`` / ``sim:SEED`` (or ``sim:SEED@960x540``): the simulated camera, a rendered game with
  hands: not here but in ``companion.sim.camera.open_camera``, which the commands use (the
  pipeline never imports the simulator);
- ``auto``: the Pi camera if picamera2 is installed, else the first USB camera.

Every source is a context manager and an iterator of :class:`Frame`. A missing backend or an
unreadable path raises :class:`SourceError` with one plain sentence; the Pi camera without its
software raises :class:`CameraSoftwareMissing`, which the commands say in the set-up check's
words (``companion.doctor.words.source_problem``: its ``software_missing`` line).
"""

from __future__ import annotations

import glob
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import cv2
import numpy as np

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class SourceError(ValueError):
    """A frame source cannot be opened or read (missing backend, no camera, bad path)."""


class CameraSoftwareMissing(SourceError):
    """The Raspberry Pi camera's module cannot be imported. Its words are the set-up check's
    (``software_missing``), not this module's: ``str()`` only names the source."""

    def __init__(self, source: str) -> None:
        super().__init__(f"{source}: the camera's module cannot be imported")
        self.source = source


@dataclass
class Frame:
    """One picture with its time in seconds (from the source's own clock) and its number."""

    image: np.ndarray
    timestamp: float
    index: int
    # what a simulated camera knows about the frame (``companion.sim.camera.Truth``); None from
    # a real camera
    truth: Any = None


class FrameSource:
    """Open, read frames until None, close. Also a context manager and an iterator."""

    name = "source"
    _index = 0  # the number the next frame gets

    def open(self) -> None:
        """Acquire the device or file. Called once before the first read."""

    def _numbered(self, image: Any, t: float) -> Frame:
        """``image`` taken at ``t`` as this source's next frame."""
        frame = Frame(image, t, self._index)
        self._index += 1
        return frame

    def read(self) -> Frame | None:
        """The next frame, or None at the end of the stream."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file. Safe to call twice."""

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while True:
            frame = self.read()
            if frame is None:
                return
            yield frame


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = text.lower().split("x")
        size = (int(w), int(h))
    except ValueError:
        raise SourceError(
            f"bad frame size {text!r}: expected WIDTHxHEIGHT such as 1920x1080"
        ) from None
    if size[0] < 16 or size[1] < 16:
        raise SourceError(f"frame size {text!r} is too small")
    return size


# --------------------------------------------------------------------------------------------
# Raspberry Pi camera
# --------------------------------------------------------------------------------------------


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported only when opened).

    Frames are asked for in picamera2's ``RGB888`` format, whose bytes are in B, G, R order: what
    OpenCV expects, so no conversion is needed.
    """

    name = "picamera2"

    def __init__(self, size: tuple[int, int] = (1920, 1080), camera: int = 0) -> None:
        self.size = size
        self.camera_num = camera
        self._cam: Any = None
        self._index = 0
        self._t0 = 0.0

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:
            log.info("the Raspberry Pi camera's module cannot be imported: %s", exc)
            raise CameraSoftwareMissing(self.name) from None
        try:
            cam = Picamera2(self.camera_num)
            config = cam.create_video_configuration(main={"size": self.size, "format": "RGB888"})
            cam.configure(config)
            cam.start()
        except Exception as exc:  # the library raises many kinds; all mean "no camera"
            raise SourceError(f"cannot start the Raspberry Pi camera: {exc}") from None
        self._cam = cam
        self._t0 = time.monotonic()

    def read(self) -> Frame | None:
        if self._cam is None:
            self.open()
        try:
            arr = self._cam.capture_array("main")
        except Exception as exc:
            raise SourceError(f"the Raspberry Pi camera stopped: {exc}") from None
        image = np.ascontiguousarray(arr[:, :, :3])
        return self._numbered(image, time.monotonic() - self._t0)

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
                cam.close()
            except Exception as exc:
                log.warning("closing the Raspberry Pi camera: %s", exc)


# --------------------------------------------------------------------------------------------
# USB cameras and video files through OpenCV
# --------------------------------------------------------------------------------------------


class V4L2Source(FrameSource):
    """A USB (UVC) camera through OpenCV's V4L2 backend."""

    name = "v4l2"

    def __init__(
        self, device: str = "/dev/video0", size: tuple[int, int] | None = (1920, 1080)
    ) -> None:
        self.device = device
        self.size = size
        self._cap: cv2.VideoCapture | None = None
        self._index = 0
        self._t0 = 0.0

    def open(self) -> None:
        target: int | str = int(self.device) if self.device.isdigit() else self.device
        if isinstance(target, str) and not os.path.exists(target):
            raise SourceError(f"no camera at {self.device}")
        cap = cv2.VideoCapture(target, cv2.CAP_V4L2)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open the camera {self.device} (busy, or not a camera)")
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._cap = cap
        self._t0 = time.monotonic()

    def read(self) -> Frame | None:
        if self._cap is None:
            self.open()
        assert self._cap is not None
        ok, image = self._cap.read()
        if not ok or image is None:
            raise SourceError(f"the camera {self.device} gave no picture")
        return self._numbered(np.asarray(image), time.monotonic() - self._t0)

    def close(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()


class FileSource(FrameSource):
    """Frames from a video file, an image, a folder of images or a glob of images.

    Images are read in name order and stamped ``index / fps``; a video uses its own frame times.
    """

    name = "file"

    def __init__(self, path: str, fps: float = 10.0) -> None:
        self.path = path
        self.fps = float(fps)
        self._images: list[str] | None = None
        self._cap: cv2.VideoCapture | None = None
        self._index = 0

    def _list_images(self) -> list[str] | None:
        p = Path(self.path)
        if any(ch in self.path for ch in "*?["):
            names = sorted(glob.glob(self.path))
            if not names:
                raise SourceError(f"no file matches {self.path}")
            return names
        if p.is_dir():
            names = sorted(str(q) for q in p.iterdir() if q.suffix.lower() in IMAGE_SUFFIXES)
            if not names:
                raise SourceError(f"the folder {self.path} holds no images")
            return names
        if not p.exists():
            raise SourceError(f"no such file: {self.path}")
        if p.suffix.lower() in IMAGE_SUFFIXES:
            return [str(p)]
        return None

    def open(self) -> None:
        images = self._list_images()
        if images is not None:
            self._images = images
            return
        cap = cv2.VideoCapture(self.path)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"{self.path} is neither an image nor a video OpenCV can read")
        fps = cap.get(cv2.CAP_PROP_FPS)
        if fps and fps > 0:
            self.fps = float(fps)
        self._cap = cap

    def read(self) -> Frame | None:
        if self._images is None and self._cap is None:
            self.open()
        if self._images is not None:
            if self._index >= len(self._images):
                return None
            name = self._images[self._index]
            image = cv2.imread(name, cv2.IMREAD_COLOR)
            if image is None:
                raise SourceError(f"{name} is not an image OpenCV can read")
        else:
            assert self._cap is not None
            ok, image = self._cap.read()
            if not ok or image is None:
                return None
        return self._numbered(np.asarray(image), self._index / self.fps)

    def close(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()
        self._images = None
        self._index = 0


# --------------------------------------------------------------------------------------------
# The factory
# --------------------------------------------------------------------------------------------


def open_source(
    spec: str, *, size: tuple[int, int] | None = None, fps: float | None = None
) -> FrameSource:
    """Build the source named by ``spec`` (see the module docs). It is not opened yet."""
    spec = (spec or "auto").strip()
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind == "auto":
        try:
            import picamera2  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
        except ImportError:
            if os.path.exists("/dev/video0"):
                return V4L2Source("/dev/video0", size or (1920, 1080))
            raise SourceError(
                "no camera found (picamera2 is not installed and /dev/video0 does not exist); "
                "choose one with --source"
            ) from None
        return Picamera2Source(size or (1920, 1080))
    if kind == "picamera2":
        return Picamera2Source(parse_size(arg) if arg else (size or (1920, 1080)))
    if kind == "v4l2":
        device, _, sz = (arg or "/dev/video0").partition("@")
        return V4L2Source(device or "/dev/video0", parse_size(sz) if sz else (size or (1920, 1080)))
    if kind == "file":
        if not arg:
            raise SourceError("file: needs a path, as in file:game.mp4 or file:frames/*.png")
        return FileSource(arg, fps=fps or 10.0)
    raise SourceError(
        f"unknown source {spec!r}: use picamera2, v4l2:/dev/video0, file:PATH or sim[:SEED]"
    )
