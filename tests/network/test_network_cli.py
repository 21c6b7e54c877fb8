"""`companion network status|hotspot|join|auto` against a fake nmcli: exit codes, JSON, the
password kept 0600 in the state directory, one sentence for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.network import default_ssid

from .conftest import FakeNmcli


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_status_json_is_the_contract(nmcli: FakeNmcli, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "network", "status", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert list(data) == ["mode", "ssid", "security", "addresses", "mdns", "interface"]
    assert data["mode"] == "none" and data["addresses"] == []


def test_hotspot_open_then_wpa2_keeps_the_password_private(
    nmcli: FakeNmcli, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = tmp_path / "state"
    code, out, _ = run(capsys, "network", "hotspot", "--state-dir", str(state), "--json")
    data = json.loads(out)
    assert (code, data["mode"], data["ssid"], data["security"]) == (
        0, "hotspot", default_ssid(), "open",
    )  # fmt: skip
    assert data["addresses"] == ["10.42.0.1"]
    assert not (state / "network-password").exists()
    code, out, _ = run(
        capsys, "network", "hotspot", "--password", 'a;b,c:d"e', "--state-dir", str(state)
    )
    assert code == 0 and "WPA2" in out and default_ssid() in out
    path = state / "network-password"
    assert path.read_text() == 'a;b,c:d"e\n'
    assert path.stat().st_mode & 0o777 == 0o600
    # no password again: the open set-up network, the password forgotten
    assert run(capsys, "network", "hotspot", "--state-dir", str(state))[0] == 0
    assert not path.exists()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["network", "hotspot", "--password", "short"], "8 to 63 characters"),
        (["network", "hotspot", "--password", "x" * 64], "8 to 63 characters"),
        (["network", "hotspot", "--password", "pässword-1"], "printable ASCII"),
        (["network", "join", ""], "must not be empty"),
        (["network", "join", "Cafe", "--password", "g" * 64], "must be hex digits"),
        (["network", "join", "Cafe", "--password", "short"], "8 to 63 characters"),
        (["network", "join", "n" * 33], "longer than 32 bytes"),
        (["network", "status", "--interface", "../etc"], "not a network interface"),
        (["network", "auto", "--wait", "-1"], "--wait must be"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(
    nmcli: FakeNmcli,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    argv: list[str],
    words: str,
) -> None:
    code, out, err = (
        run(capsys, *argv, "--state-dir", str(tmp_path))
        if argv[1] != "status"
        else run(capsys, *argv)
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err and err.startswith("companion: ")
    assert nmcli.calls() == []  # refused before NetworkManager is asked


def test_join_failure_reopens_the_box_network(
    nmcli: FakeNmcli, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = str(tmp_path)
    assert (
        run(capsys, "network", "hotspot", "--password", "own-secret", "--state-dir", state)[0] == 0
    )
    code, out, err = run(
        capsys, "network", "join", "Library", "--password", "nope-nope", "--state-dir", state
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "own network is open again" in err
    code, out, _ = run(capsys, "network", "status", "--json")
    assert json.loads(out)["security"] == "wpa2"
    code, out, _ = run(capsys, "network", "join", "Library", "--state-dir", state, "--json")
    assert code == 0 and json.loads(out)["mode"] == "wifi"


def test_auto_opens_the_box_network_with_the_kept_password(
    nmcli: FakeNmcli, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "network-password").write_text("kept-secret\n")
    code, out, _ = run(capsys, "network", "auto", "--wait", "5", "--state-dir", str(tmp_path))
    assert code == 0 and "no known Wi-Fi" in out
    assert nmcli.world["profiles"]["companion-hotspot"]["psk"] == "kept-secret"


def test_no_networkmanager_is_exit_2_without_a_traceback(nmcli: FakeNmcli) -> None:
    nmcli.change(running=False)
    done = subprocess.run(
        [sys.executable, "-m", "companion", "network", "status"],
        capture_output=True, text=True, env=nmcli.env(), timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "companion: NetworkManager is not running\n"
