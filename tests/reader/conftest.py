"""Fixtures for the card reader tests: shared vectors, a simulated reader on a real pty."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reader_helpers import wait_for

from companion.reader.cards import CardCatalog
from companion.reader.simulated import SimulatedReader
from companion.reader.transport import ReaderTransport

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "reader_protocol.json"


@pytest.fixture(scope="session")
def vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="session")
def catalog() -> CardCatalog:
    return CardCatalog.europe()


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[SimulatedReader]:
    reader = SimulatedReader(tmp_path / "ttr-reader")
    reader.start()
    yield reader
    reader.close()


@pytest.fixture
def transport(sim: SimulatedReader) -> Iterator[ReaderTransport]:
    t = ReaderTransport(sim.path, backoff=(0.01, 0.1))
    t.start()
    assert wait_for(lambda: t.hello is not None), "no HELLO from the simulated reader"
    yield t
    t.stop()
