"""Readers for the live watcher's tests: the oracle with the real reader's weak spot."""

from __future__ import annotations

import numpy as np

from companion.sim.live_oracle import OracleReader
from companion.vision.live.sources import Frame
from companion.vision.types import BoardReading


class BlindToTheirOwnColour(OracleReader):
    """A reader that cannot see trains on a route printed in their own colour (the real
    reader's weak spot): such a route reads free; nothing else is misread."""

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        r = super().read(frame, corners)
        routes = {
            rid: (None if c == self.geometry.routes[rid].color else c)
            for rid, c in r.routes.items()
        }
        return BoardReading(routes, r.stations, r.confidence)
