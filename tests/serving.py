"""The command line of a real `companion serve` on 127.0.0.1 at a free port, for the tests and
benchmarks that start one as its own process; and waitress run in a thread of the test's own."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def serve_cmd(state_dir: Path, *extra: str) -> list[str]:
    """`python -m companion serve` on this interpreter, loopback only, the port chosen by the OS."""
    return [
        sys.executable,
        "-m",
        "companion",
        "serve",
        "--state-dir",
        str(state_dir),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        *extra,
    ]


def exchange(
    conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None, headers: Any
) -> tuple[int, Any]:
    """One request on ``conn`` (closed after): the status and the JSON answer (or raw bytes)."""
    try:
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, raw
    finally:
        conn.close()


def start_served(state_dir: Path, stderr: int, cwd: Path) -> tuple[subprocess.Popen[str], int, str]:
    """A `companion serve` process (``serve_cmd``, no QR) once it says where it serves: the
    process, its port and the host's token."""
    proc = subprocess.Popen(
        serve_cmd(state_dir, "--no-qr"),
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        cwd=cwd,
    )
    assert proc.stdout is not None
    port = 0
    for line in proc.stdout:
        if "serving on" in line:
            port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
            break
    return proc, port, (state_dir / "host-token").read_text().strip()


class InThread:
    """A waitress server (already bound) serving in a daemon thread of this process."""

    def __init__(self, server: Any, name: str = "waitress") -> None:
        self.server = server
        self.closing = False
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.server.run()
        except (OSError, ValueError):
            # waitress's loop may trip over its own sockets while close() runs in this thread's
            # back; anything before closing is a real failure.
            if not self.closing:
                raise

    def close(self, first: Callable[[], None]) -> None:
        """``first`` (the service's stop, which ends the event streams), then the server, its
        thread and the connections a client left open: the garbage collector would otherwise
        close them inside some later test, as an unclosed-socket warning."""
        self.closing = True
        first()
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
        self.server.close()
        self.thread.join(5)
        for channel in list(self.server._map.values()):
            channel.close()


@contextmanager
def running_service(state_dir: Path) -> Iterator[Any]:
    """The game service on an event log in ``state_dir``, running in this process; stopped and
    its log closed after."""
    from companion.service import Service
    from companion.store import EventStore

    store = EventStore(state_dir)
    svc = Service(store).start()
    try:
        yield svc
    finally:
        svc.stop()
        store.close()
