"""A small, standard-library sd_notify for ``Type=notify`` services with a watchdog.

systemd passes the notification socket in ``$NOTIFY_SOCKET`` (a path, or an abstract socket
written with a leading ``@``) and, with ``WatchdogSec=``, the watchdog period in
``$WATCHDOG_USEC`` (plus ``$WATCHDOG_PID``, the process that must pet it). Outside systemd
neither is set and everything here does nothing, so the same code runs under ``companion serve``
at a terminal.

Typical use in the service::

    from companion import sdnotify

    watchdog = sdnotify.Watchdog.from_env()
    sdnotify.notify("READY=1", "STATUS=serving on :8080")
    while running:
        ...one turn of the loop...
        watchdog.pet()          # sends WATCHDOG=1 at most every half period
    sdnotify.notify("STOPPING=1")
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Mapping

logger = logging.getLogger(__name__)


def _socket_address(value: str) -> str | bytes | None:
    """The connectable address for a NOTIFY_SOCKET value, or None when unusable."""
    if value.startswith("@"):
        # Abstract namespace: a leading NUL byte instead of the '@'.
        return b"\0" + value[1:].encode("utf-8")
    if value.startswith("/"):
        return value
    return None


def notify(*states: str, env: Mapping[str, str] | None = None) -> bool:
    """Send ``states`` (e.g. ``"READY=1"``, ``"STATUS=..."``) to systemd in one datagram.

    Returns True when a message was sent, False when not running under systemd (no
    NOTIFY_SOCKET) or when sending failed (logged, never raised: a notification problem must
    not stop the game).
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    target = environ.get("NOTIFY_SOCKET", "")
    if not target or not states:
        return False
    for state in states:
        if "\n" in state or "=" not in state:
            raise ValueError(f"an sd_notify state is one KEY=VALUE line, got {state!r}")
    address = _socket_address(target)
    if address is None:
        logger.warning("ignoring NOTIFY_SOCKET=%r: not a path or an abstract socket", target)
        return False
    message = "\n".join(states).encode("utf-8")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message)
    except OSError as exc:
        logger.warning("sd_notify to %s failed: %s", target, exc)
        return False
    return True


def ready(status: str | None = None, env: Mapping[str, str] | None = None) -> bool:
    """Tell systemd start-up is done (READY=1), optionally with a status line."""
    states = ["READY=1"] + ([f"STATUS={_one_line(status)}"] if status else [])
    return notify(*states, env=env)


def status(text: str, env: Mapping[str, str] | None = None) -> bool:
    """Set the free-form status shown by ``systemctl status``."""
    return notify(f"STATUS={_one_line(text)}", env=env)


def stopping(env: Mapping[str, str] | None = None) -> bool:
    """Tell systemd the service is shutting down on purpose."""
    return notify("STOPPING=1", env=env)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def watchdog_interval(env: Mapping[str, str] | None = None, pid: int | None = None) -> float | None:
    """The watchdog period in seconds that systemd asked for, or None when there is none.

    None too when ``$WATCHDOG_PID`` names another process (the variable was inherited).
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    usec = environ.get("WATCHDOG_USEC", "")
    if not usec:
        return None
    try:
        period = int(usec)
    except ValueError:
        logger.warning("ignoring WATCHDOG_USEC=%r: not a whole number", usec)
        return None
    if period <= 0:
        return None
    wd_pid = environ.get("WATCHDOG_PID", "")
    if wd_pid:
        own = os.getpid() if pid is None else pid
        if wd_pid.strip() != str(own):
            return None
    return period / 1_000_000


class Watchdog:
    """Pets systemd's watchdog from a loop without flooding it.

    ``pet()`` is cheap and may be called on every turn of the loop: it sends ``WATCHDOG=1`` only
    when half the period has passed since the last one (systemd's own advice). When systemd set
    no watchdog it does nothing and returns False.
    """

    def __init__(
        self,
        period: float | None,
        env: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.period = period
        self._env = env
        self._clock = clock
        self._last: float | None = None

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, clock: Callable[[], float] = time.monotonic
    ) -> Watchdog:
        return cls(watchdog_interval(env), env=env, clock=clock)

    @property
    def enabled(self) -> bool:
        return self.period is not None

    @property
    def interval(self) -> float | None:
        """How often pet() actually sends: half the period."""
        return None if self.period is None else self.period / 2

    def due(self) -> bool:
        """True when the next pet() would send."""
        if self.period is None:
            return False
        if self._last is None:
            return True
        return self._clock() - self._last >= self.period / 2

    def pet(self, force: bool = False) -> bool:
        """Send WATCHDOG=1 if it is due (or ``force``); True when a message went out."""
        if self.period is None or not (force or self.due()):
            return False
        sent = notify("WATCHDOG=1", env=self._env)
        if sent:
            self._last = self._clock()
        return sent
