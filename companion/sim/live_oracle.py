"""A ground-truth reader for simulated frames, with the mistakes a real reader makes.

The :class:`OracleReader` reads the :class:`~companion.sim.camera.Truth` a simulated camera
attaches to each frame, then spoils it the way a camera reader goes wrong: now and then a route
or city comes out in a wrong colour, and whatever lies under a hand, an arm or a shadow is
misread most of the time. It lets the live watcher's logic be tested (and demonstrated) apart
from the pixel reader, and counts how often it was asked to read a board with a hand over it.
"""

from __future__ import annotations

import numpy as np

from companion.vision.geometry.board import DrawnBoard, load_geometry
from companion.vision.live.sources import Frame
from companion.vision.types import PLAYER_COLORS, BoardReading, NoBoardError


class OracleReader:
    """Reads the simulator's truth. ``flip``: chance a route/city is misread on any read;
    ``covered_flip``: chance a route/city under a hand or shadow is misread."""

    def __init__(
        self,
        geometry: DrawnBoard | None = None,
        *,
        seed: int = 0,
        flip: float = 0.003,
        covered_flip: float = 0.7,
        confidence: float = 0.95,
    ) -> None:
        self.geometry = geometry or load_geometry()
        self.rng = np.random.default_rng(seed)
        self.flip = flip
        self.covered_flip = covered_flip
        self.confidence = confidence
        self.reads = 0
        self.reads_with_hands = 0  # reads of frames with a hand or shadow over the board

    def locate(self, frame: Frame) -> np.ndarray:
        if frame.truth is None:
            raise NoBoardError("the oracle reader only reads simulated frames")
        return np.asarray(frame.truth.corners, np.float64).reshape(4, 2)

    def _wrong(self, value: str | None) -> str | None:
        choices: list[str | None] = [None, *PLAYER_COLORS]
        choices.remove(value)
        return choices[int(self.rng.integers(0, len(choices)))]

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        truth = frame.truth
        if truth is None:
            raise NoBoardError("the oracle reader only reads simulated frames")
        self.reads += 1
        if truth.occlusion > 0:
            self.reads_with_hands += 1
        routes = {
            rid: self._seen(truth.scene.routes.get(rid), rid in truth.covered)
            for rid, info in self.geometry.routes.items()
            if info.spaces
        }
        stations = {
            cid: self._seen(truth.scene.stations.get(cid), cid in truth.covered_cities)
            for cid in self.geometry.cities
        }
        confidence = dict.fromkeys([*routes, *stations], self.confidence)
        return BoardReading(routes=routes, stations=stations, confidence=confidence)

    def _seen(self, value: str | None, covered: bool) -> str | None:
        """``value`` as the oracle reports it: wrong with the chance of a flip (a covered
        space's when a hand covers it)."""
        p = self.covered_flip if covered else self.flip
        return self._wrong(value) if self.rng.random() < p else value


class BlindToTheirOwnColour(OracleReader):
    """A reader that cannot see trains on a route printed in their own colour (the real
    reader's weak spot): such a route reads free; nothing else is misread. For the live
    watcher's tests and ``benchmarks/bench_live_bursts.py``."""

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        r = super().read(frame, corners)
        routes = {
            rid: (None if c == self.geometry.routes[rid].color else c)
            for rid, c in r.routes.items()
        }
        return BoardReading(routes, r.stations, r.confidence)
