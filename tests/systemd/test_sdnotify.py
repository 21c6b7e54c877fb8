"""companion.sdnotify against real AF_UNIX datagram sockets (a path one and an abstract one)."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import sdnotify


class Listener:
    def __init__(self, sock: socket.socket, name: str) -> None:
        self.sock = sock
        self.name = name  # the NOTIFY_SOCKET value

    def messages(self) -> list[str]:
        out = []
        while True:
            try:
                out.append(self.sock.recv(4096).decode())
            except BlockingIOError:
                return out


@pytest.fixture
def path_socket() -> Iterator[Listener]:
    # A short directory: AF_UNIX paths are limited to 107 bytes.
    with tempfile.TemporaryDirectory(prefix="sdn") as tmp:
        path = str(Path(tmp) / "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.setblocking(False)
        yield Listener(sock, path)
        sock.close()


@pytest.fixture
def abstract_socket() -> Iterator[Listener]:
    name = f"companion-test-{os.getpid()}-{id(object())}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.setblocking(False)
    yield Listener(sock, "@" + name)
    sock.close()


def test_ready_and_status_reach_a_path_socket(path_socket: Listener) -> None:
    env = {"NOTIFY_SOCKET": path_socket.name}
    assert sdnotify.ready("serving on :8080", env=env)
    assert sdnotify.status("2 players\n  waiting", env=env)
    assert sdnotify.stopping(env=env)
    assert path_socket.messages() == [
        "READY=1\nSTATUS=serving on :8080",
        "STATUS=2 players waiting",
        "STOPPING=1",
    ]


def test_an_abstract_socket_is_reached_through_the_at_sign(abstract_socket: Listener) -> None:
    assert sdnotify.notify("WATCHDOG=1", env={"NOTIFY_SOCKET": abstract_socket.name})
    assert abstract_socket.messages() == ["WATCHDOG=1"]


def test_without_systemd_nothing_is_sent_and_nothing_fails() -> None:
    assert sdnotify.notify("READY=1", env={}) is False
    assert sdnotify.ready(env={}) is False
    watchdog = sdnotify.Watchdog.from_env(env={})
    assert not watchdog.enabled
    assert watchdog.pet() is False


def test_a_dead_socket_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    with tempfile.TemporaryDirectory(prefix="sdn") as tmp:
        env = {"NOTIFY_SOCKET": str(Path(tmp) / "nobody-listens")}
        assert sdnotify.notify("READY=1", env=env) is False
    assert "sd_notify to" in caplog.text


def test_a_relative_socket_name_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    assert sdnotify.notify("READY=1", env={"NOTIFY_SOCKET": "notify.sock"}) is False
    assert "not a path or an abstract socket" in caplog.text


@pytest.mark.parametrize("bad", ["READY", "STATUS=a\nREADY=1"])
def test_malformed_states_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="one KEY=VALUE line"):
        sdnotify.notify(bad, env={"NOTIFY_SOCKET": "/run/nothing"})


@pytest.mark.parametrize(
    ("env", "pid", "expected"),
    [
        ({"WATCHDOG_USEC": "30000000"}, 7, 30.0),
        ({"WATCHDOG_USEC": "5000000", "WATCHDOG_PID": "7"}, 7, 5.0),
        ({"WATCHDOG_USEC": "5000000", "WATCHDOG_PID": "8"}, 7, None),  # inherited, not ours
        ({"WATCHDOG_USEC": "0"}, 7, None),
        ({"WATCHDOG_USEC": "soon"}, 7, None),
        ({}, 7, None),
    ],
)
def test_watchdog_interval_follows_the_environment(
    env: dict[str, str], pid: int, expected: float | None
) -> None:
    assert sdnotify.watchdog_interval(env, pid=pid) == expected


def test_watchdog_pets_at_most_every_half_period(path_socket: Listener) -> None:
    now = [100.0]
    env = {
        "NOTIFY_SOCKET": path_socket.name,
        "WATCHDOG_USEC": "10000000",
        "WATCHDOG_PID": str(os.getpid()),
    }
    watchdog = sdnotify.Watchdog.from_env(env=env, clock=lambda: now[0])
    assert watchdog.enabled
    assert watchdog.interval == 5.0
    sent = []
    for step in range(40):  # a loop turning every 0.5 s for 20 s
        now[0] = 100.0 + step * 0.5
        sent.append(watchdog.pet())
    assert sum(sent) == 4  # at 0, 5, 10 and 15 s
    assert [i for i, s in enumerate(sent) if s] == [0, 10, 20, 30]
    assert path_socket.messages() == ["WATCHDOG=1"] * 4
    assert not watchdog.due()
    assert watchdog.pet(force=True)
    assert path_socket.messages() == ["WATCHDOG=1"]


def test_the_watchdog_retries_when_a_pet_was_lost(caplog: pytest.LogCaptureFixture) -> None:
    with tempfile.TemporaryDirectory(prefix="sdn") as tmp:
        path = str(Path(tmp) / "notify")
        env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"}
        watchdog = sdnotify.Watchdog.from_env(env=env, clock=lambda: 50.0)
        assert watchdog.pet() is False  # nobody listening yet: not counted as sent
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        try:
            assert watchdog.due()
            assert watchdog.pet() is True
            assert sock.recv(100) == b"WATCHDOG=1"
        finally:
            sock.close()
