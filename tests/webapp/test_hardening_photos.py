"""Photo jobs on the real server: a bounded queue (one more is a 503 and no job) and finished
jobs that expire."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import BEARER
from .images import png
from .live import LiveServer


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(tmp_path / "state")
    yield s
    s.close()


def upload(live: LiveServer) -> tuple[int, Any]:
    return live.request_raw(
        "POST", "/api/photo", png(32, 24), {**BEARER, "Content-Type": "image/png"}
    )


def poll(live: LiveServer, job: str) -> tuple[int, Any]:
    return live.request("GET", f"/api/photo/{job}", None, BEARER)


def test_photo_jobs_are_bounded_and_expire(live: LiveServer) -> None:
    gate = threading.Event()

    def reader(data: bytes) -> dict[str, Any]:
        gate.wait(10)
        return {"routes": {}, "stations": {}, "confidence": {}}

    live.service._photo_reader = reader
    photos = live.service.photos
    photos.keep = 0.5
    jobs = []
    for _ in range(1 + photos.waiting):  # one being read, the others waiting
        status, body = upload(live)
        assert status == 202
        jobs.append(body["job"])
    status, body = upload(live)
    assert status == 503 and body["code"] == "photo.busy"
    assert sorted(live.service._photo_jobs) == sorted(jobs)  # no job for the refused one
    gate.set()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(
        poll(live, j)[1]["status"] == "reading" for j in jobs
    ):
        time.sleep(0.05)
    assert all(poll(live, j)[1]["status"] == "done" for j in jobs)
    time.sleep(0.7)  # past the time finished jobs are kept
    status, body = poll(live, jobs[0])
    assert status == 404 and body["code"] == "photo.no_job"
    assert live.service._photo_jobs == {}
    status, body = upload(live)  # a new job has a new id, never an old one's
    assert status == 202 and body["job"] not in jobs
