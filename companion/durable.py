"""Durable small files: written whole or not at all (:func:`write_atomic`: a temporary file
beside it, fsync, rename, fsync of the directory), and a directory synced after a file in it was
renamed into place (the token files, the host sessions, the network's saved password and scan,
the log's witness, backups)."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


def sync_dir(directory: Path) -> None:
    """fsync a directory (a rename in it is durable after this); an error is let pass."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def temp_path(path: Path) -> Path:
    """A new name beside ``path`` for its next content (hidden, this process's, random)."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def write_temp(path: Path, data: bytes, mode: int, owner_of: Path | None = None) -> Path:
    """``data`` in a new temporary file beside ``path``, synced, with exactly ``mode`` (whatever
    the umask); run as root, owned like ``owner_of`` (when given), so that its owner (the
    service's user) reads and replaces it."""
    tmp = temp_path(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            if owner_of is not None and os.geteuid() == 0:
                st = owner_of.stat()
                os.fchown(f.fileno(), st.st_uid, st.st_gid)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def write_atomic(path: Path, data: bytes, mode: int = 0o600, owner_of: Path | None = None) -> None:
    """Write ``path`` whole or not at all, with exactly ``mode``; run as root, the file is
    given to ``owner_of``'s owner (the state directory's, say). A full disk leaves the old file
    (or none), never an empty one."""
    tmp = write_temp(path, data, mode, owner_of)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    sync_dir(path.parent)


__all__ = ["sync_dir", "temp_path", "write_atomic", "write_temp"]
