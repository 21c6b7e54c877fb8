"""Photo jobs: an uploaded photo of the board is read on a worker thread of its own (not the
game loop); its job is polled, and a notice tells every screen when it is read."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from companion.service.errors import NotFound, sentence

log = logging.getLogger(__name__)

PhotoReader = Callable[[bytes], dict[str, Any]]


class Notify(Protocol):
    def __call__(
        self,
        text: str,
        level: str = "info",
        color: str | None = None,
        *,
        code: str = "message",
        params: Mapping[str, Any] | None = None,
    ) -> None: ...


@dataclass
class PhotoJob:
    id: str
    status: str = "reading"  # reading | done | failed
    error: str | None = None
    reading: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"job": self.id, "status": self.status, "error": self.error, "reading": self.reading}


class Photos:
    """The photo jobs of this process, read one at a time by one worker thread."""

    def __init__(self, notice: Notify) -> None:
        self._notice = notice
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self.jobs: dict[str, PhotoJob] = {}

    def read(self, data: bytes, reader: PhotoReader) -> PhotoJob:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="companion-photo")
            job = PhotoJob(f"p{len(self.jobs) + 1}")
            self.jobs[job.id] = job
            pool = self._pool
        pool.submit(self._run, job, reader, data)
        return job

    def _run(self, job: PhotoJob, reader: PhotoReader, data: bytes) -> None:
        try:
            reading = reader(data)
        except ValueError as exc:
            job.error = sentence(str(exc))
            job.status = "failed"
            self._notice(
                f"The photo could not be read: {exc}",
                "error",
                code="photo.failed",
                params={"error": sentence(str(exc))},
            )
            return
        except Exception as exc:
            log.exception("reading a photo failed")
            job.error = sentence(f"the photo could not be read ({type(exc).__name__})")
            job.status = "failed"
            self._notice(
                job.error, "error", code="photo.failed", params={"error": type(exc).__name__}
            )
            return
        job.reading = reading
        job.status = "done"
        n = sum(1 for v in reading.get("routes", {}).values() if v)
        self._notice(
            f"The photo is read: {n} routes with trains. Check them on the map.",
            code="photo.read",
            params={"n": n},
        )

    def job(self, job_id: str) -> PhotoJob:
        with self._lock:
            job = self.jobs.get(job_id)
        if job is None:
            raise NotFound(
                f"There is no photo job {job_id!r}.",
                code="photo.no_job",
                params={"job": job_id},
            )
        return job

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


def read_photo_bytes(data: bytes) -> dict[str, Any]:
    """Decode an uploaded image and read the board (ValueError with a sentence if not)."""
    import cv2
    import numpy as np

    from companion.vision.read import read_board

    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("the upload is not a JPEG or PNG image")
    reading = read_board(np.asarray(image, dtype=np.uint8))
    out = reading.to_json()
    return {
        "routes": out["routes"],
        "stations": out["stations"],
        "confidence": out["confidence"],
    }
