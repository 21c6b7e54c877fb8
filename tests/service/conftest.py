"""Fixtures of the service tests: the real server on 127.0.0.1 in a fresh state directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.service import Service
from tests.webapp.live import LiveServer


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(tmp_path / "state")
    yield s
    s.close()


@pytest.fixture
def svc(service: Service) -> Service:
    """tests/conftest.py's running service on a fresh log, under the service tests' short name
    (a test file with its own ``svc``, a game already begun, overrides it)."""
    return service
