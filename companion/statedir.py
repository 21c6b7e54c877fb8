"""What ``companion serve`` does with its state directory before it serves.

* One server per state directory: an exclusive lock held while it runs (:func:`lock_state_dir`).
* A damaged event log is one sentence naming the file and what to do, or is set aside and a new
  log begun (:func:`open_event_log`).
* The host link (it holds the host token) is printed only to a terminal, never into a journal
  (:func:`host_link_lines`).

Two servers on one event log would both accept actions, each from its own idea of the game, and
the acknowledged actions of one would vanish at the next start. The lock is ``flock`` on
``DIR/serve.lock``, which also holds the process id of its holder; the kernel releases it when
the process ends, however it ends (``kill -9`` included), so a stale file never blocks a start.
"""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import os
import shlex
import sys
from pathlib import Path
from typing import Any, TextIO

LOCK_NAME = "serve.lock"


class StateDirInUse(RuntimeError):
    """Another process holds the state directory."""

    def __init__(self, state_dir: Path, pid: int | None) -> None:
        who = f"process {pid}" if pid else "another process"
        super().__init__(f"state directory in use by {who}: {state_dir}")
        self.state_dir = state_dir
        self.pid = pid


class StateLock:
    """The held lock (release it with :meth:`release` or by ending the process)."""

    def __init__(self, state_dir: Path, fd: int) -> None:
        self.state_dir = state_dir
        self.path = state_dir / LOCK_NAME
        self._fd: int | None = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing the descriptor drops the flock

    def __enter__(self) -> StateLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def lock_state_dir(state_dir: Path | str) -> StateLock:
    """Take the state directory for this process, or raise :class:`StateDirInUse`."""
    d = Path(state_dir)
    d.mkdir(parents=True, exist_ok=True)
    fd = os.open(d / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = _holder(fd)
        os.close(fd)
        raise StateDirInUse(d, pid) from None
    except OSError:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    return StateLock(d, fd)


class StartError(RuntimeError):
    """The state directory cannot be used: one sentence for the operator."""


def open_event_log(state_dir: Path, *, set_aside_damaged: bool = False) -> tuple[Any, Any]:
    """The event log and its (not yet started) Service. A damaged log is :class:`StartError`
    naming the file and what to do, or with ``set_aside_damaged`` is kept under another name
    and a new log begins."""
    from companion.service import Service
    from companion.store import DamagedLog, EventStore, StoreError, set_aside

    try:
        try:
            store = EventStore(state_dir)
            try:
                return store, Service(store)
            except BaseException:
                store.close()
                raise
        except DamagedLog as exc:
            if not set_aside_damaged:
                again = shlex.join([*command_prefix(), "--state-dir", str(state_dir)])
                raise StartError(
                    f"{exc}; to keep it aside as {exc.path.name}.damaged-<date> and begin a new "
                    f"log, run: {again} --set-aside-damaged-log (or put back a copy of the "
                    f"file from a backup)"
                ) from None
            moved = set_aside(state_dir)
            print(
                f"companion: the damaged event log is kept as {moved}; a new log begins",
                file=sys.stderr,
                flush=True,
            )
            store = EventStore(state_dir)
            return store, Service(store)
    except StoreError as exc:
        raise StartError(f"cannot use the state directory {state_dir}: {exc}") from None


def command_prefix() -> list[str]:
    """How this process was started, as far as ``companion serve`` (for hints to retype)."""
    prog = sys.argv[0] if sys.argv and sys.argv[0].endswith("companion") else "companion"
    return [prog, "serve"]


def host_link_lines(
    login: str, *, created: bool, state_dir: Path, base: str, out: TextIO | None = None
) -> tuple[list[str], bool]:
    """What to print about the host link, and whether to print its QR code: the link itself on
    a terminal; elsewhere (a journal, a pipe) how to show it, never the token."""
    stream = out if out is not None else sys.stdout
    new = " (new token)" if created else ""
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if terminal:
        return [f"companion: host link{new}: {login}"], True
    user = _user()
    show = [*command_prefix(), "--state-dir", str(state_dir), "--public-url", base, "--host-link"]
    # under systemd (INVOCATION_ID) the service has its own user: the reader is someone else
    sudo = ["sudo", "-u", user] if user and os.environ.get("INVOCATION_ID") else []
    return [
        f"companion: host link{new}: not printed here (the output is not a terminal); to show "
        f"it with its QR code, run in a terminal: {shlex.join([*sudo, *show])}"
    ], False


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


__all__ = [
    "LOCK_NAME",
    "StartError",
    "StateDirInUse",
    "StateLock",
    "command_prefix",
    "host_link_lines",
    "lock_state_dir",
    "open_event_log",
]
