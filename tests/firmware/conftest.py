"""Host tests of the firmware's pure modules: firmware/ goes on sys.path, as on the Pico."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "reader_protocol.json"

if str(FIRMWARE) not in sys.path:
    sys.path.insert(0, str(FIRMWARE))


@pytest.fixture(scope="session")
def vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS.read_text(encoding="utf-8"))
    return data
