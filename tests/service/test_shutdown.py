"""Stopping `companion serve` while a phone holds the event stream open is clean: exit code 0,
the stream ends, and no traceback in the output."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.serving import serve_cmd

pytestmark = pytest.mark.slow


def _start(state_dir: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        serve_cmd(state_dir, "--no-qr"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"serving on http://127\.0\.0\.1:(\d+)/", line)
        if m:
            return proc, int(m.group(1))
    proc.kill()
    raise AssertionError(f"the server did not start: {proc.communicate()[0]}")


def _open_stream(port: int) -> socket.socket:
    """A raw HTTP client on /api/events that has read the first state (the stream is live)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    got = b""
    deadline = time.monotonic() + 10
    while b"data:" not in got and time.monotonic() < deadline:
        chunk = s.recv(4096)
        if not chunk:
            break
        got += chunk
    assert b"200 OK" in got and b"data:" in got, got[:300]
    return s


def _read_to_end(s: socket.socket, limit: float) -> bytes:
    s.settimeout(limit)
    got = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    except TimeoutError:
        pass
    return got


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_stop_with_an_open_event_stream_is_clean(tmp_path: Path, sig: signal.Signals) -> None:
    proc, port = _start(tmp_path / "state")
    streams = [_open_stream(port), _open_stream(port)]
    try:
        time.sleep(0.3)
        t0 = time.monotonic()
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=30)
        took = time.monotonic() - t0
        tails = [_read_to_end(s, 2.0) for s in streams]
    finally:
        for s in streams:
            s.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert "Traceback" not in out, out
    assert "Bad file descriptor" not in out, out
    assert "still running" not in out, out  # the stream threads ended before the server closed
    assert took < 10, f"stopping took {took:.1f} s"
    # the streams were ended by the server (the chunked body's last chunk), not cut
    for tail in tails:
        assert tail.endswith(b"0\r\n\r\n"), tail[-80:]
