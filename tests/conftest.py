from __future__ import annotations

from pathlib import Path

import pytest

from companion.core.board import GameMap
from companion.data import europe_map

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def emap() -> GameMap:
    return europe_map()
