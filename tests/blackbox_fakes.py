"""The live watcher and camera frame as the black box's recorder sees them (only the fields it
reads), shared by the recorder's tests, the black-box pages and API tests and the benchmark."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Status:
    state: str = "read"


@dataclass
class Watcher:
    status: Status = field(default_factory=Status)
    corners: Any = field(default_factory=lambda: np.array([[1, 2], [90, 2], [90, 60], [1, 60]]))
    config: Any = None
    state: Any = None


@dataclass
class Frame:
    image: Any
    timestamp: float
    index: int
