"""`companion serve` as a real process: kill -9 mid-game and a restart give back the same game."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.serving import serve_cmd

pytestmark = pytest.mark.slow

PLAYERS = [
    {"name": "Aki", "color": "red"},
    {"name": "Ben", "color": "blue"},
    {"name": "Chiara", "color": "green"},
]


class Server:
    def __init__(self, state_dir: Path) -> None:
        self.proc = subprocess.Popen(
            serve_cmd(state_dir, "--no-qr"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.base = ""
        deadline = time.monotonic() + 30
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            m = re.search(r"serving on (http://127\.0\.0\.1:\d+)/", line)
            if m:
                self.base = m.group(1)
                break
        assert self.base, (
            f"the server did not start: {self.proc.stderr.read() if self.proc.stderr else ''}"
        )
        self.token = (state_dir / "host-token").read_text().strip()
        self.wait_ready()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.base + "/api/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        raise AssertionError("the server never answered /api/health")

    def state_bytes(self) -> bytes:
        with urllib.request.urlopen(self.base + "/api/state", timeout=5) as r:
            return r.read()  # type: ignore[no-any-return]

    def act(self, action: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        req = urllib.request.Request(
            self.base + "/api/actions",
            data=json.dumps(action).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()


def play_some(server: Server) -> None:
    assert server.act({"type": "new_game", "players": PLAYERS, "payment_mode": "lenient"})[0] == 200
    tickets = {
        "red": ["paris-wien", "brest-marseille"],
        "blue": ["budapest-zurich", "brindisi-zurich"],
        "green": ["angora-athina", "budapest-sofia"],
    }
    for color, ids in tickets.items():
        assert server.act({"type": "keep_tickets", "player": color, "tickets": ids})[0] == 200
    moves = [
        {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3},
        {"type": "end_turn", "player": "red"},
        {"type": "build_station", "player": "blue", "city": "wien", "cards": ["pink"]},
        {"type": "end_turn", "player": "blue"},
        {"type": "drew_cards", "player": "green", "count": 2},
        {"type": "end_turn", "player": "green"},
        {"type": "claim", "player": "red", "route": "munchen-wien", "cards": ["orange"] * 3},
        {"type": "undo"},
    ]
    for m in moves:
        code, body = server.act(m)
        assert code == 200, body


def pair(server: Server, color: str) -> str:
    """The host makes a pairing link for ``color``: its token."""
    req = urllib.request.Request(
        f"{server.base}/api/players/{color}/pair",
        data=b"{}",
        headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=5) as r:
        return str(json.loads(r.read())["url"]).rsplit("/", 1)[1]


def pair_and_open(server: Server, color: str) -> None:
    """A pairing link that a phone opens: the state's ``phone_seen``."""
    token = pair(server, color)
    with urllib.request.urlopen(f"{server.base}/pair/{token}", timeout=5) as r:
        assert r.status == 200  # redirected to the phone's page
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        players = json.loads(server.state_bytes())["players"]
        if next(p for p in players if p["color"] == color)["phone_seen"]:
            return
        time.sleep(0.02)
    raise AssertionError(f"{color}'s phone was never seen")


def test_kill9_and_restart_give_the_same_state(tmp_path: Path) -> None:
    server = Server(tmp_path)
    try:
        play_some(server)
        pair_and_open(server, "red")
        pair(server, "blue")  # paired, but its phone has not opened the link
        before = server.state_bytes()
        seen = {p["color"]: p["phone_seen"] for p in json.loads(before)["players"]}
        assert seen == {"red": True, "blue": False, "green": False}
        server.kill9()
        server = Server(tmp_path)
        after = server.state_bytes()
        assert after == before
        state = json.loads(after)
        assert state["players"][0]["routes"] == ["berlin-wien"] and state["last"]["type"] == "undo"
        # The game goes on after the restart.
        assert (
            server.act(
                {"type": "claim", "player": "red", "route": "munchen-wien", "cards": ["orange"] * 3}
            )[0]
            == 200
        )
    finally:
        server.stop()


def test_kill9_while_actions_are_in_flight_loses_no_acknowledged_action(tmp_path: Path) -> None:
    server = Server(tmp_path)
    acked: list[int] = []
    try:
        play_some(server)
        stop = threading.Event()

        def hammer() -> None:
            colors = ["red", "blue", "green"]
            i = 0
            while not stop.is_set():
                try:
                    code, body = server.act(
                        {"type": "drew_cards", "player": colors[i % 3], "count": 2}
                    )
                    if code == 200:
                        acked.append(body["seq"])
                    code, body = server.act({"type": "end_turn", "player": colors[i % 3]})
                    if code == 200:
                        acked.append(body["seq"])
                except (OSError, http.client.HTTPException, json.JSONDecodeError):
                    return  # killed mid-request, or between an answer's head and its body
                i += 1

        t = threading.Thread(target=hammer, daemon=True)
        t.start()
        deadline = time.monotonic() + 10
        while len(acked) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        server.kill9()
        stop.set()
        t.join(timeout=10)
        assert len(acked) >= 20
        server = Server(tmp_path)
        state = json.loads(server.state_bytes())
        assert state["seq"] >= max(acked)
        # Restarting again changes nothing: the state is the fold of the log.
        first = server.state_bytes()
        server.kill9()
        server = Server(tmp_path)
        assert server.state_bytes() == first
    finally:
        server.stop()
