"""What ``companion serve`` does with its state directory before it serves.

* One server per state directory: an exclusive lock held while it runs (:func:`lock_state_dir`).
* A damaged event log is one sentence naming the file and what to do, or is set aside and a new
  log begun (:func:`open_event_log`).
* The host link (it holds the host token) is printed only to a terminal, never into a journal
  (:func:`host_link_lines`).
* Tokens and the other small files are written atomically (a temporary file, fsync, rename:
  :func:`companion.durable.write_atomic`); an empty or unreadable host token is replaced with
  one log line (:func:`read_or_create_token`).
* ``companion host open-claim`` asks the running server for a host-claim window through a file
  (:func:`request_claim`, :func:`take_claim_request`).

Two servers on one event log would both accept actions, each from its own idea of the game, and
the acknowledged actions of one would vanish at the next start. The lock is ``flock`` on
``DIR/serve.lock``, which also holds the process id of its holder; the kernel releases it when
the process ends, however it ends (``kill -9`` included), so a stale file never blocks a start.
"""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import json
import logging
import os
import secrets
import shlex
import stat
import sys
from pathlib import Path
from typing import Any, TextIO

from companion.durable import sync_dir, write_atomic, write_temp

log = logging.getLogger(__name__)

LOCK_NAME = "serve.lock"
TOKEN_FILE = "host-token"
CLAIM_FILE = "host-claim"
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
MAX_CLAIM_SECONDS = 600


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


# --- small files written atomically -----------------------------------------------------------


def create_atomic(path: Path, data: bytes, mode: int = 0o600) -> bool:
    """Like :func:`write_atomic`, but only when ``path`` does not exist (False: it did)."""
    tmp = write_temp(path, data, mode)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    sync_dir(path.parent)
    return True


def valid_token(text: str) -> bool:
    return len(text) >= 16 and len(text) <= 256 and set(text) <= TOKEN_CHARS


def read_token(state_dir: Path) -> str | None:
    """The host token of ``state_dir`` (None: there is none, or it cannot be used)."""
    try:
        text = (state_dir / TOKEN_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if valid_token(text) else None


def new_token() -> str:
    return secrets.token_urlsafe(32)


def read_or_create_token(state_dir: Path) -> tuple[str, bool]:
    """The host token of ``state_dir`` (mode 0600), made on first use. Returns (token, created).

    An empty, damaged or unreadable file (a first start on a full disk used to leave an empty
    one) is replaced by a new token, with one log line."""
    path = state_dir / TOKEN_FILE
    state_dir.mkdir(parents=True, exist_ok=True)
    for _ in range(3):
        problem = None
        try:
            text = path.read_bytes().decode("utf-8").strip()
        except FileNotFoundError:
            token = new_token()
            if create_atomic(path, (token + "\n").encode("ascii")):
                return token, True
            continue  # another process made it meanwhile: read that one
        except UnicodeDecodeError:
            problem = "not text"
        except OSError as exc:
            if path.is_dir():
                raise
            problem = exc.strerror or str(exc)
        else:
            if valid_token(text):
                if path.stat().st_mode & 0o077:
                    os.chmod(path, 0o600)
                    log.warning("%s was readable by others; it is now mode 0600", path)
                return text, False
            problem = "empty" if not text else "not a host token"
        token = new_token()
        write_atomic(path, (token + "\n").encode("ascii"))
        log.warning("%s could not be used (%s); a new host token was written", path, problem)
        return token, True
    raise OSError(f"{path} keeps changing; is another program writing it?")


def replace_token(state_dir: Path) -> str:
    """A new host token for ``state_dir`` (the old one stops working), written atomically."""
    token = new_token()
    write_atomic(state_dir / TOKEN_FILE, (token + "\n").encode("ascii"))
    return token


# --- the host-claim request of `companion host open-claim` -------------------------------------


def request_claim(state_dir: Path, seconds: int, now: float) -> Path:
    """Ask the server of ``state_dir`` for a claim window of ``seconds`` (from ``now``, a unix
    time): a file it takes (and removes) within a second."""
    path = state_dir / CLAIM_FILE
    body = json.dumps({"seconds": int(seconds), "written": float(now)}).encode("ascii")
    write_atomic(path, body)
    return path


def take_claim_request(state_dir: Path, now: float) -> float | None:
    """Seconds of claim window asked for by a :func:`request_claim` file, which is removed (None:
    no file, or one to ignore: stale, not ours, not a regular file, damaged; each logged)."""
    path = state_dir / CLAIM_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:  # a symlink (ELOOP) or no permission
        log.warning("ignoring %s: %s", path, exc.strerror or exc)
        _remove(path)
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_size > 256:
            log.warning("ignoring %s: not a small file of this server's user", path)
            return None
        raw = os.read(fd, 257)
    finally:
        os.close(fd)
        _remove(path)
    try:
        data = json.loads(raw.decode("ascii"))
        seconds = float(data["seconds"])
        written = float(data["written"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        log.warning("ignoring %s: it is not a claim request", path)
        return None
    if not 0 < seconds <= MAX_CLAIM_SECONDS or written > now + 5:
        log.warning("ignoring %s: its time is not plausible", path)
        return None
    left = written + seconds - now
    if left <= 0:
        log.info("ignoring %s: its window has passed", path)
        return None
    return min(left, seconds)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def lock_holder(state_dir: Path) -> int | None:
    """The process id of the server holding ``state_dir`` (None: no server runs on it)."""
    path = state_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _holder(fd) or -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


__all__ = [
    "CLAIM_FILE",
    "LOCK_NAME",
    "TOKEN_FILE",
    "StartError",
    "StateDirInUse",
    "StateLock",
    "command_prefix",
    "host_link_lines",
    "lock_holder",
    "lock_state_dir",
    "open_event_log",
    "read_or_create_token",
    "read_token",
    "replace_token",
    "request_claim",
    "take_claim_request",
    "write_atomic",
]
