"""The command line of a real `companion serve` on 127.0.0.1 at a free port, for the tests and
benchmarks that start one as its own process."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
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
