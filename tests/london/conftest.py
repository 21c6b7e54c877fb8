from __future__ import annotations

import pytest

from companion.london.board import LondonMap, london_map


@pytest.fixture(scope="session")
def lmap() -> LondonMap:
    return london_map()
