"""`companion serve` and its state directory: one server per directory, a damaged log is one
sentence (or set aside), the host token never goes into a journal. Real processes on 127.0.0.1."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.service import Actor, Service
from companion.store import DB_NAME, EventStore
from tests.serving import serve_cmd

pytestmark = pytest.mark.slow

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
TICKETS = {"red": ["paris-wien", "brest-marseille"], "blue": ["budapest-zurich", "angora-athina"]}


class Proc:
    """A `companion serve` whose stdout is a pipe (like a journal) or a terminal."""

    def __init__(self, state_dir: Path, *extra: str, terminal: bool = False) -> None:
        self.master: int | None = None
        if terminal:
            self.master, slave = pty.openpty()
            out: int = slave
        else:
            out = subprocess.PIPE
        self.proc = subprocess.Popen(
            serve_cmd(state_dir, *extra),
            stdout=out,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        if terminal:
            os.close(slave)
        self.out = ""
        self.base = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "host link" not in self.out:
            chunk = self._read(deadline - time.monotonic())
            if not chunk:
                break
            self.out += chunk
        m = re.search(r"serving on (http://127\.0\.0\.1:\d+)/", self.out)
        assert m, f"not serving: {self.out!r} {self.stop()}"
        self.base = m.group(1)

    def _read(self, timeout: float) -> str:
        if self.master is not None:
            ready, _, _ = select.select([self.master], [], [], max(0.0, timeout))
            if not ready:
                return ""
            try:
                return os.read(self.master, 65536).decode("utf-8", "replace")
            except OSError:
                return ""
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().decode("utf-8", "replace")

    def health(self) -> int:
        with urllib.request.urlopen(self.base + "/api/health", timeout=5) as r:
            return int(r.status)

    def stop(self, sig: int = signal.SIGTERM) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            _, err = self.proc.communicate(timeout=20)
        finally:
            if self.master is not None:
                os.close(self.master)
                self.master = None
        return (err or b"").decode("utf-8", "replace")


def run_once(state_dir: Path, *extra: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        serve_cmd(state_dir, *extra), capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    d = tmp_path / "state"
    yield d


def test_a_second_server_on_the_same_state_directory_exits_2(state: Path) -> None:
    first = Proc(state)
    try:
        second = run_once(state)
        assert second.returncode == 2
        assert f"state directory in use by process {first.proc.pid}" in second.stderr
        assert "Traceback" not in second.stderr
        assert first.health() == 200  # the first one goes on
    finally:
        first.stop(signal.SIGKILL)
    # the lock goes with its process, however it ends: a new server starts
    again = Proc(state)
    try:
        assert again.health() == 200
    finally:
        assert "Traceback" not in again.stop()


def _a_logged_game(state: Path) -> None:
    store = EventStore(state)
    svc = Service(store).start()
    try:
        svc.act({"type": "new_game", "players": PLAYERS}, Actor.host())
        for color, ids in TICKETS.items():
            svc.act({"type": "keep_tickets", "player": color, "tickets": ids}, Actor.host())
        for color in ("red", "blue", "red", "blue"):
            svc.act({"type": "drew_cards", "player": color, "count": 2}, Actor.host())
            svc.act({"type": "end_turn", "player": color}, Actor.host())
    finally:
        svc.stop()
        store.close()


def _garbage(db: Path) -> None:
    db.write_bytes(b"this is not a database at all " * 200)


def _bad_page(db: Path) -> None:
    with db.open("r+b") as f:
        f.seek(4096 + 8)  # the second page's header, past its type byte
        f.write(b"\xff" * 64)


def _bad_event(db: Path) -> None:
    con = sqlite3.connect(db)
    con.execute('UPDATE events SET action=\'{"type": "drew_\' WHERE seq=2')
    con.commit()
    con.close()


def _cut(db: Path) -> None:
    with db.open("r+b") as f:
        f.truncate(1000)


@pytest.mark.parametrize("damage", [_garbage, _bad_page, _bad_event, _cut])
def test_a_damaged_log_is_one_sentence_then_set_aside(state: Path, damage: object) -> None:
    _a_logged_game(state)
    db = state / DB_NAME
    for side in ("-wal", "-shm"):
        assert not db.with_name(DB_NAME + side).exists()  # all checkpointed at close
    assert callable(damage)
    damage(db)
    damaged = db.read_bytes()
    out = run_once(state)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert str(db) in lines[0] and "damaged" in lines[0] and "--set-aside-damaged-log" in lines[0]
    # as told: the damaged file is kept aside, byte for byte, and a new log begins
    server = Proc(state, "--set-aside-damaged-log")
    try:
        assert server.health() == 200
        kept = sorted(state.glob(DB_NAME + ".damaged-*"))
        assert [p.name for p in kept if not p.name.endswith(("-wal", "-shm"))]
        assert kept[0].read_bytes() == damaged
    finally:
        assert "Traceback" not in server.stop()


def test_the_host_token_goes_to_a_terminal_only(state: Path) -> None:
    piped = Proc(state)
    try:
        token = (state / "host-token").read_text().strip()
        assert token not in piped.out
        assert "host link" in piped.out and "--host-link" in piped.out
    finally:
        piped.stop()
    tty = Proc(state, terminal=True)
    try:
        assert f"/host/login?token={token}" in tty.out
    finally:
        tty.stop()
    # the command the journal names prints it (the operator asked for it)
    shown = subprocess.run(
        [*serve_cmd(state, "--host-link", "--no-qr", "--public-url", "http://127.0.0.1:9")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert shown.returncode == 0
    assert f"http://127.0.0.1:9/host/login?token={token}" in shown.stdout


def test_under_systemd_the_hint_runs_as_the_service_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from companion.statedir import host_link_lines

    login = "http://192.0.2.7:8080/host/login?token=secret-token-0123456789"
    monkeypatch.setenv("INVOCATION_ID", "0123abcd")  # set by systemd for a unit's processes
    monkeypatch.setattr(sys, "argv", ["/opt/companion/venv/bin/companion", "serve"])
    journal = io.StringIO()  # not a terminal
    lines, qr = host_link_lines(
        login, created=True, state_dir=tmp_path, base="http://192.0.2.7:8080", out=journal
    )
    assert not qr and len(lines) == 1 and "secret-token" not in lines[0]
    assert "sudo -u " in lines[0]
    assert "/opt/companion/venv/bin/companion serve --state-dir " in lines[0]
    assert lines[0].endswith("--public-url http://192.0.2.7:8080 --host-link")
