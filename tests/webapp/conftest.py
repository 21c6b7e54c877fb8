from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.service import Service
from companion.store import EventStore
from companion.webapp import create_app

TOKEN = "host-token-for-tests-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    store = EventStore(tmp_path)
    svc = Service(store).start()
    yield svc
    svc.stop()
    store.close()


@pytest.fixture
def app(service: Service) -> Flask:
    return create_app(service, {"HOST_TOKEN": TOKEN, "SSE_KEEPALIVE": 0.1, "SSE_LIFETIME": 5.0})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
