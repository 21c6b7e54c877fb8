"""The command line of a real `companion serve` on 127.0.0.1 at a free port, for the tests and
benchmarks that start one as its own process."""

from __future__ import annotations

import sys
from pathlib import Path


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
