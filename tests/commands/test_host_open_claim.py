"""`companion host open-claim` on a real `companion serve` (waitress on 127.0.0.1): the claim
file it writes is honoured by the running server; only the state directory's owner may ask.
The server starts on a state directory whose host-token file is empty (a first start on a full
disk used to leave one): it writes a new token, says so in one log line, and serves."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from tests.serving import serve_cmd

pytestmark = pytest.mark.slow


def claim(port: int) -> tuple[int, dict[str, Any], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(
            "POST", "/api/host/claim", body=b"{}", headers={"Content-Type": "application/json"}
        )
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read()), resp.getheader("Set-Cookie") or ""
    finally:
        conn.close()


def open_claim(state: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "companion", "host", "open-claim", "--state-dir", str(state)]
    return subprocess.run([*cmd, *extra], capture_output=True, text=True, timeout=30)


def test_open_claim_is_honoured_by_a_running_serve(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "host-token").write_text("")  # empty: replaced at start, with one log line
    proc = subprocess.Popen(
        serve_cmd(state, "--no-qr"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        text=True,
    )
    try:
        assert proc.stdout is not None
        out = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "no host device yet" not in out:
            line = proc.stdout.readline()
            if not line:
                break
            out += line
        m = re.search(r"serving on http://127\.0\.0\.1:(\d+)/", out)
        assert m and "no host device yet" in out, out
        port = int(m.group(1))
        token = (state / "host-token").read_text().strip()
        assert len(token) >= 40
        status, body, cookie = claim(port)
        assert status == 403 and body["code"] == "host.claim_closed" and not cookie
        done = open_claim(state, "--seconds", "30")
        assert done.returncode == 0, done.stderr
        assert "host claim window open for 30 s" in done.stdout
        assert not (state / "host-claim").exists()
        status, body, cookie = claim(port)
        assert status == 200 and body["role"] == "host"
        assert cookie.startswith("companion_host=h1.") and token not in cookie
        status, body, cookie = claim(port)  # the window closed with the first claim
        assert status == 403 and body["code"] == "host.claim_closed" and not cookie
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    replaced = [line for line in err.splitlines() if "a new host token was written" in line]
    assert len(replaced) == 1 and "empty" in replaced[0]
    assert "Traceback" not in err


def test_open_claim_needs_the_state_directorys_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    owner = state.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)
    assert main(["host", "open-claim", "--state-dir", str(state)]) == 2
    err = capsys.readouterr().err
    assert "only the state directory's owner" in err and "sudo -u" in err
    assert not (state / "host-claim").exists()


def test_open_claim_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["host", "open-claim", "--state-dir", str(tmp_path / "none")]) == 2
    assert "there is no state directory" in capsys.readouterr().err
    assert main(["host", "open-claim", "--state-dir", str(tmp_path), "--seconds", "0"]) == 2
    assert "--seconds must be between 5 and 600" in capsys.readouterr().err
    # no server on the directory: the request waits for the next start
    assert main(["host", "open-claim", "--state-dir", str(tmp_path), "--seconds", "5"]) == 0
    assert "no server runs on" in capsys.readouterr().out
    assert (tmp_path / "host-claim").exists()
