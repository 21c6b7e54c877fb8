"""Photo jobs: an uploaded photo of the board is read on a worker thread of its own (not the
game loop); its job is polled, and a notice tells every screen when it is read."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from companion.service.errors import NotFound, Unavailable, sentence

log = logging.getLogger(__name__)

PhotoReader = Callable[[bytes], dict[str, Any]]


class Notify(Protocol):
    """A notice to the screens (``Streams.notice``); ``audience="host"``: the host's only."""

    def __call__(
        self,
        text: str,
        level: str = "info",
        color: str | None = None,
        *,
        code: str = "message",
        params: Mapping[str, Any] | None = None,
        audience: str | None = None,
    ) -> None: ...


@dataclass
class PhotoJob:
    id: str
    status: str = "reading"  # reading | done | failed
    error: str | None = None
    reading: dict[str, Any] | None = None
    finished: float | None = None  # when it was read or failed (time.monotonic)

    def to_json(self) -> dict[str, Any]:
        return {"job": self.id, "status": self.status, "error": self.error, "reading": self.reading}


class Photos:
    """The photo jobs of this process, read one at a time by one worker thread.

    Bounded: at most :attr:`waiting` photos wait behind the one being read (each holds its
    upload; one more is 503, no job); a finished job is kept :attr:`keep` seconds for its
    poller, then forgotten (404), and at most :attr:`most` finished jobs are kept."""

    waiting = 2
    keep = 600.0
    most = 20

    def __init__(self, notice: Notify, clock: Callable[[], float] = time.monotonic) -> None:
        self._notice = notice
        self._clock = clock
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._counter = 0
        self.jobs: dict[str, PhotoJob] = {}

    def _expire(self) -> None:
        """Forget the jobs finished too long ago, and the oldest beyond :attr:`most`."""
        now = self._clock()
        done = [j for j in self.jobs.values() if j.finished is not None]
        for j in done:
            if now - (j.finished or now) > self.keep:
                del self.jobs[j.id]
        done = [j for j in self.jobs.values() if j.finished is not None]
        for j in done[: max(0, len(done) - self.most)]:
            del self.jobs[j.id]

    def read(self, data: bytes, reader: PhotoReader) -> PhotoJob:
        with self._lock:
            self._expire()
            busy = sum(1 for j in self.jobs.values() if j.finished is None)
            if busy > self.waiting:
                raise Unavailable(
                    "Photos are still being read; send this one when they are done.",
                    code="photo.busy",
                    params={"waiting": busy},
                )
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="companion-photo")
            self._counter += 1
            job = PhotoJob(f"p{self._counter}")
            self.jobs[job.id] = job
            pool = self._pool
        pool.submit(self._run, job, reader, data)
        return job

    def _finish(self, job: PhotoJob, status: str) -> None:
        job.status = status
        job.finished = self._clock()

    def _run(self, job: PhotoJob, reader: PhotoReader, data: bytes) -> None:
        try:
            reading = reader(data)
        except ValueError as exc:
            job.error = sentence(str(exc))
            self._finish(job, "failed")
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
            self._finish(job, "failed")
            self._notice(
                job.error, "error", code="photo.failed", params={"error": type(exc).__name__}
            )
            return
        job.reading = reading
        self._finish(job, "done")
        n = sum(1 for v in reading.get("routes", {}).values() if v)
        self._notice(
            f"The photo is read: {n} routes with trains. Check them on the map.",
            code="photo.read",
            params={"n": n},
        )

    def job(self, job_id: str) -> PhotoJob:
        with self._lock:
            self._expire()
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
    from companion.vision.reading.decode import NotAnImage, read_photo

    try:  # decoded at the size the board needs (libjpeg's scaled decoding)
        reading = read_photo(data)
    except NotAnImage:
        raise ValueError("the upload is not a JPEG or PNG image") from None
    return reading_json(reading)


def reading_json(reading: Any) -> dict[str, Any]:
    """A photo's reading (a ``vision.types.BoardReading``) as the photo job gives it."""
    out = reading.to_json()
    return {
        "routes": out["routes"],
        "stations": out["stations"],
        "confidence": out["confidence"],
        # what a person should confirm, and impossible combinations as seen (photo mode's list)
        "check": out.get("check", []),
        "problems": out.get("problems", []),
    }
