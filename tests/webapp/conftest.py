from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.service import Service
from companion.webapp import create_app
from tests.waiting import wait_for

TOKEN = "host-token-for-tests-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def app(service: Service) -> Flask:
    return create_app(service, {"HOST_TOKEN": TOKEN, "SSE_KEEPALIVE": 0.1, "SSE_LIFETIME": 5.0})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def photo_result(client: FlaskClient, job: str, timeout: float) -> dict[str, Any]:
    """GET /api/photo/<job> until it is no longer reading (or ``timeout`` seconds pass): its last
    answer, ``done`` with the reading or ``failed`` with the error."""
    got: dict[str, Any] = {}

    def finished() -> bool:
        got.clear()
        got.update(client.get(f"/api/photo/{job}", headers=BEARER).json)
        return got["status"] != "reading"

    wait_for(finished, timeout, step=0.02)
    return got
