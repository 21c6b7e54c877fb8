"""Durable renames: a directory is synced after a file in it was renamed into place (the
token files, the log's witness, backups)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def sync_dir(directory: Path) -> None:
    """fsync a directory (a rename in it is durable after this); an error is let pass."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
