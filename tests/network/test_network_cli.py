"""`companion network status|hotspot|join|auto` against a fake nmcli: exit codes, JSON, the
password kept 0600 in the state directory, one sentence for bad input."""

from __future__ import annotations

import io
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


def given(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """Standard input as a pipe holding ``text``."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_status_json_is_the_contract(nmcli: FakeNmcli, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "network", "status", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert list(data) == ["mode", "ssid", "security", "addresses", "mdns", "interface"]
    assert data["mode"] == "none" and data["addresses"] == []


def test_hotspot_open_then_wpa2_keeps_the_password_private(
    nmcli: FakeNmcli,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = tmp_path / "state"
    code, out, _ = run(capsys, "network", "hotspot", "--state-dir", str(state), "--json")
    data = json.loads(out)
    assert (code, data["mode"], data["ssid"], data["security"]) == (
        0, "hotspot", default_ssid(), "open",
    )  # fmt: skip
    assert data["addresses"] == ["10.42.0.1"]
    assert not (state / "network-password").exists()
    given(monkeypatch, 'a;b,c:d"e\n')
    code, out, err = run(
        capsys, "network", "hotspot", "--password-stdin", "--state-dir", str(state)
    )
    assert code == 0 and "WPA2" in out and default_ssid() in out
    assert err == ""  # no warning: the password was not on the command line
    path = state / "network-password"
    assert path.read_text() == 'a;b,c:d"e\n'
    assert path.stat().st_mode & 0o777 == 0o600
    # no password again: the open set-up network, the password forgotten
    assert run(capsys, "network", "hotspot", "--state-dir", str(state))[0] == 0
    assert not path.exists()


STDIN = ["--password-stdin"]


@pytest.mark.parametrize(
    ("argv", "stdin", "words"),
    [
        (["network", "hotspot", *STDIN], "short\n", "8 to 63 characters"),
        (["network", "hotspot", *STDIN], "x" * 64, "8 to 63 characters"),
        (["network", "hotspot", *STDIN], "pässword-1\n", "printable ASCII"),
        (["network", "hotspot", *STDIN], "", "no password on its first line"),
        (["network", "hotspot", *STDIN], "\nsecond-line\n", "no password on its first line"),
        (["network", "hotspot", "--password"], "", "--password-stdin"),  # no terminal to ask
        (["network", "join", ""], "", "must not be empty"),
        (["network", "join", "Cafe", *STDIN], "g" * 64, "must be hex digits"),
        (["network", "join", "Cafe", *STDIN], "short\r\n", "8 to 63 characters"),
        (["network", "join", "Cafe", "--password"], "", "--password-stdin"),
        (["network", "join", "n" * 33], "", "longer than 32 bytes"),
        (["network", "status", "--interface", "../etc"], "", "not a network interface"),
        (["network", "auto", "--wait", "-1"], "", "--wait must be"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(
    nmcli: FakeNmcli,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
    stdin: str,
    words: str,
) -> None:
    given(monkeypatch, stdin)
    code, out, err = (
        run(capsys, *argv, "--state-dir", str(tmp_path))
        if argv[1] != "status"
        else run(capsys, *argv)
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err and err.startswith("companion: ")
    assert nmcli.calls() == []  # refused before NetworkManager is asked


def test_join_failure_reopens_the_box_network(
    nmcli: FakeNmcli,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = str(tmp_path)
    given(monkeypatch, "own-secret\n")
    assert run(capsys, "network", "hotspot", *STDIN, "--state-dir", state)[0] == 0
    given(monkeypatch, "nope-nope\n")
    code, out, err = run(capsys, "network", "join", "Library", *STDIN, "--state-dir", state)
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


class Terminal(io.StringIO):
    """Standard input on a terminal (what getpass reads is given by ``typed``)."""

    def isatty(self) -> bool:
        return True


def typing(monkeypatch: pytest.MonkeyPatch, *typed: str) -> list[str]:
    """A terminal on which ``typed`` is typed at getpass's prompts; returns the prompts."""
    prompts: list[str] = []
    answers = iter(typed)

    def ask(prompt: str, stream: object = None) -> str:
        assert stream is sys.stderr  # prompts go to stderr, so stdout stays the status
        prompts.append(prompt)
        answer = next(answers, None)
        if answer is None:
            raise EOFError
        return answer

    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr("getpass.getpass", ask)
    return prompts


def test_password_alone_asks_twice_for_the_box_network(
    nmcli: FakeNmcli,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompts = typing(monkeypatch, "typed-secret", "typed-secret")
    code, out, err = run(capsys, "network", "hotspot", "--password", "--state-dir", str(tmp_path))
    assert (code, err) == (0, "") and "WPA2" in out
    assert len(prompts) == 2 and "box's own network" in prompts[0]
    assert nmcli.world["profiles"]["companion-hotspot"]["psk"] == "typed-secret"
    assert (tmp_path / "network-password").read_text() == "typed-secret\n"
    # --password-stdin on a terminal asks too (without echo), not readline
    typing(monkeypatch, "other-secret", "other-secret")
    assert run(capsys, "network", "hotspot", *STDIN, "--state-dir", str(tmp_path))[0] == 0
    assert (tmp_path / "network-password").read_text() == "other-secret\n"


def test_two_different_passwords_typed_change_nothing(
    nmcli: FakeNmcli,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    typing(monkeypatch, "typed-secret", "typed-secreT")
    code, out, err = run(capsys, "network", "hotspot", "--password", "--state-dir", str(tmp_path))
    assert code == 2 and out == "" and "differ" in err and err.count("\n") == 1
    assert nmcli.calls() == [] and not (tmp_path / "network-password").exists()
    typing(monkeypatch, "")
    code, _, err = run(capsys, "network", "join", "Cafe", "--password", "--state-dir", "x")
    assert code == 2 and "no password was typed" in err and nmcli.calls() == []
    typing(monkeypatch)  # Ctrl-D at the prompt: getpass raises EOFError
    code, _, err = run(capsys, "network", "join", "Cafe", "--password", "--state-dir", "x")
    assert code == 2 and err == "companion: no password was typed\n" and nmcli.calls() == []


def test_join_asks_once_with_the_network_name(
    nmcli: FakeNmcli,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompts = typing(monkeypatch, "espresso-42")
    code, _, err = run(
        capsys, "network", "join", "Cafe:2F\\east", "--password", "--state-dir", str(tmp_path)
    )
    assert (code, err) == (0, "") and prompts == ["Password of Cafe:2F\\east: "]
    assert nmcli.world["profiles"]["Cafe:2F\\east"]["psk"] == "espresso-42"


def test_a_password_on_the_command_line_still_works_with_a_warning(
    nmcli: FakeNmcli, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(
        capsys, "network", "hotspot", "--password", "argv-secret", "--state-dir", str(tmp_path)
    )
    assert code == 0 and "WPA2" in out
    assert err.startswith("companion: warning: [network.password_on_command_line] ")
    assert "visible to every user" in err and "--password-stdin" in err
    assert "argv-secret" not in err  # the warning does not repeat it
    assert nmcli.world["profiles"]["companion-hotspot"]["psk"] == "argv-secret"
    with pytest.raises(SystemExit) as stop:  # one way at a time (argparse's usage error)
        main(["network", "join", "Cafe", "--password", "argv-secret", "--password-stdin"])
    assert stop.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_password_stdin_through_a_pipe_keeps_it_off_every_command_line(
    nmcli: FakeNmcli, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    argv = [sys.executable, "-m", "companion", "network", "hotspot", "--password-stdin"]
    done = subprocess.run(
        [*argv, "--state-dir", str(state), "--json"],
        input="piped secret\\x\n", capture_output=True, text=True, env=nmcli.env(),
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert json.loads(done.stdout)["security"] == "wpa2"
    assert (state / "network-password").read_text() == "piped secret\\x\n"
    assert nmcli.world["profiles"]["companion-hotspot"]["psk"] == "piped secret\\x"
    # neither companion's command line nor nmcli's had it (the fake refuses a secret on argv)
    assert not any("piped secret" in " ".join(call) for call in nmcli.calls())
