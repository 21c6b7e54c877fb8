"""The board readers the live watcher can be given: the project's own (``VisionReader``: locate,
register, read with a cache) or any pair of functions (``CallableReader``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from companion.vision.decide.context import default_context
from companion.vision.live.sources import Frame
from companion.vision.locate import register
from companion.vision.locate.locate import BoardLocation, locate_board
from companion.vision.reading.read import ReadCache, read_board
from companion.vision.types import BoardReading

# --------------------------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------------------------


class FrameReader(Protocol):
    """What the watcher needs from the board reader."""

    def locate(self, frame: Frame) -> np.ndarray:
        """The board's corners in the frame, TL TR BR BL (4x2); raises NoBoardError."""
        ...

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        """Read the board whose corners are ``corners``."""
        ...


class CallableReader:
    """Adapts plain functions: ``read(image) -> BoardReading`` and ``locate(image) -> corners``
    (or fixed ``corners``, for a fixed camera already calibrated)."""

    def __init__(
        self,
        read: Callable[[np.ndarray], BoardReading],
        *,
        locate: Callable[[np.ndarray], Any] | None = None,
        corners: Any = None,
    ) -> None:
        if locate is None and corners is None:
            raise ValueError("CallableReader needs a locate function or fixed corners")
        self._read = read
        self._locate = locate
        self._corners = None if corners is None else np.asarray(corners, np.float64).reshape(4, 2)

    def locate(self, frame: Frame) -> np.ndarray:
        if self._locate is not None:
            return np.asarray(self._locate(frame.image), np.float64).reshape(4, 2)
        assert self._corners is not None
        return self._corners

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        return self._read(frame.image)


class VisionReader:
    """The project's own reader (companion.vision.locate.locate / register / read).

    ``calibration``: a saved ``companion.vision.locate.calibration.Calibration`` to start from.
    ``profile``: the camera's ``profile.TableProfile`` to read with (None: none); the owner may
    replace it between reads (``service.profile_store.TappedReader`` does).
    One reader per camera: it keeps the reader's ``ReadCache`` (sampling maps kept while the
    board stays put, unchanged frames not read again). Frames are read as they come: the reader
    decimates a picture itself (by a whole step) only when it holds more pixels per space than
    it needs, so a 1080p frame is never resized.
    """

    def __init__(self, calibration: Any = None, profile: Any = None) -> None:
        self.calibration = calibration
        self.profile = profile
        self.cache = ReadCache()
        # the local offsets (lens, a board not flat) measured for the current corners
        self._offsets: tuple[bytes, Any] | None = None

    def local_offsets(self) -> Any:
        """The local offsets it reads the current corners with (None: not measured yet)."""
        return None if self._offsets is None else self._offsets[1]

    def use_offsets(self, corners: Any, offsets: Any) -> None:
        """Read ``corners`` with these offsets instead of measuring them (a replay reads with
        the offsets the live reader had)."""
        self._offsets = (np.asarray(corners, np.float64).tobytes(), offsets)

    def locate(self, frame: Frame) -> np.ndarray:
        if self.calibration is not None:
            h, w = frame.image.shape[:2]
            loc = self.calibration.location((w, h))
            self.calibration = None  # used once, to start; later calls locate afresh
        else:
            loc = locate_board(frame.image)
        return np.asarray(loc.corners, np.float64).reshape(4, 2)

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        h, w = frame.image.shape[:2]
        loc = BoardLocation.from_corners(np.asarray(corners, np.float64), (w, h), method="live")
        key = np.asarray(corners, np.float64).tobytes()
        if self._offsets is None or self._offsets[0] != key:
            # once per board position (frames are read only when nothing covers the board)
            self._offsets = (
                key,
                register.local_offsets(frame.image, loc.homography, default_context()),
            )
        loc = replace(loc, offsets=self._offsets[1])
        return read_board(frame.image, location=loc, cache=self.cache, profile=self.profile)
