"""`companion reader listen|enroll|simulate` end to end through a real pty."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from reader_helpers import wait_for

from companion.cli import main
from companion.core.cards import Card
from companion.reader import protocol as p
from companion.reader.cards import CardCatalog, TicketCard, TrainCard
from companion.reader.registry import Registry
from companion.reader.simulated import SimulatedReader
from companion.reader.transport import ReaderTransport

REPO = Path(__file__).resolve().parents[2]


def when_connected(sim: SimulatedReader, action: Callable[[], None]) -> threading.Thread:
    """Run ``action`` once the host has opened the reader (its PING arrived)."""

    def run() -> None:
        if wait_for(lambda: any(isinstance(c, p.Ping) for c in sim.commands), timeout=10):
            action()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_listen_json(
    sim: SimulatedReader,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    reg = tmp_path / "reg.sqlite"
    with Registry(reg, CardCatalog.europe()) as r:
        r.put("1A2B3C4D", TicketCard("paris-wien"))

    def taps() -> None:
        sim.send_raw(b"noise\x00\xff\n")
        sim.tap("04A224B2C15E80", "ttr:eu:train:red")
        sim.tap("04C3D2E1F00A81", "ttr:eu:train:locomotive")
        sim.tap("1A2B3C4D")
        sim.tap("0A0B0C0D")
        sim.tap("0A0B0C0E", "ttr:eu:train:blue")  # beyond --count

    thread = when_connected(sim, taps)
    code = main(["reader", "listen", "--port", sim.path, "--json", "--count", "4",
                 "--registry", str(reg)])  # fmt: skip
    thread.join()
    assert code == 0
    assert any("dropped 1 damaged reader lines (not-ascii 1)" in m for m in caplog.messages)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        '{"uid": "04A224B2C15E80", "card": {"kind": "train", "color": "red"}}',
        '{"uid": "04C3D2E1F00A81", "card": {"kind": "train", "color": "locomotive"}}',
        '{"uid": "1A2B3C4D", "card": {"kind": "ticket", "id": "paris-wien"}}',
        '{"uid": "0A0B0C0D", "card": null}',
    ]


def test_listen_text_uses_the_state_dir_registry(
    sim: SimulatedReader,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COMPANION_STATE_DIR", str(tmp_path / "state"))
    thread = when_connected(sim, lambda: sim.tap("04A224B2C15E80", "ttr:eu:train:red"))
    assert main(["reader", "listen", "--port", sim.path, "--count", "1"]) == 0
    thread.join()
    assert capsys.readouterr().out == "04A224B2C15E80 train red\n"
    assert (tmp_path / "state" / "reader-cards.sqlite").exists()


def test_bad_ports_and_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sim: SimulatedReader
) -> None:
    reg = ["--registry", str(tmp_path / "r.sqlite")]
    assert main(["reader", "listen", "--port", "nosuch://x", *reg]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion: ") and "Traceback" not in err and err.count("\n") == 1
    holder = ReaderTransport(sim.path)
    holder.open_now()
    try:
        assert main(["reader", "listen", "--port", sim.path, *reg]) == 2
        assert "in use" in capsys.readouterr().err
    finally:
        holder.stop()
    assert main(["reader", "enroll", "--port", sim.path, "--cards", "red,grey", *reg]) == 2
    assert "grey" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["reader", "listen", "--port", sim.path, "--count", "0"])
    assert info.value.code == 2


def test_enroll_from_a_list_and_write_stickers(
    sim: SimulatedReader, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reg = tmp_path / "reg.sqlite"

    def taps() -> None:
        sim.tap("1A2B3C4D")
        sim.tap("1A2B3C4D")  # the same card again: skipped
        sim.tap("04A224B2C15E80")
        sim.tap("04C3D2E1F00A81", "ttr:eu:train:red")  # the list says otherwise: list wins

    thread = when_connected(sim, taps)
    args = ["reader", "enroll", "--port", sim.path, "--registry", str(reg), "--write"]
    code = main([*args, "--cards", "red, loco ,ticket:paris-wien"])
    thread.join()
    assert code == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "1A2B3C4D train red (written ttr:eu:train:red)",
        "04A224B2C15E80 train locomotive (written ttr:eu:train:locomotive)",
        "04C3D2E1F00A81 ticket paris-wien (written ttr:eu:ticket:paris-wien)",
    ]
    assert "already" in captured.err and "the list says" in captured.err
    assert sim.tags["1A2B3C4D"] == "ttr:eu:train:red"
    assert sim.tags["04C3D2E1F00A81"] == "ttr:eu:ticket:paris-wien"
    with Registry(reg, CardCatalog.europe()) as r:
        assert r.get("04A224B2C15E80") == TrainCard(Card.LOCOMOTIVE)
        assert len(r) == 3


def test_enroll_asks_for_each_card(
    sim: SimulatedReader,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reg = tmp_path / "reg.sqlite"
    monkeypatch.setattr(sys, "stdin", io.StringIO("grey\npurple\n\nq\n"))

    def taps() -> None:
        sim.tap("1A2B3C4D")
        sim.tap("04A224B2C15E80", "ttr:eu:train:white")  # Enter accepts what it says
        sim.tap("0A0B0C0D")

    thread = when_connected(sim, taps)
    assert main(["reader", "enroll", "--port", sim.path, "--registry", str(reg)]) == 0
    thread.join()
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["1A2B3C4D train pink", "04A224B2C15E80 train white"]
    assert "unknown card 'grey'" in captured.err
    assert "[train white]" in captured.err
    assert "enrolled 2 cards" in captured.err
    with Registry(reg, CardCatalog.europe()) as r:
        assert r.get("1A2B3C4D") == TrainCard(Card.PINK)
        assert r.get("0A0B0C0D") is None


def test_simulate_command_runs_a_reader_on_a_pty(tmp_path: Path) -> None:
    link = tmp_path / "reader"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with subprocess.Popen(
        [sys.executable, "-m", "companion", "reader", "simulate", "--link", str(link)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        try:
            assert proc.stdout.readline().strip() == str(link)
            assert link.is_symlink()
            transport = ReaderTransport(str(link), backoff=(0.01, 0.1))
            transport.start()
            try:
                assert wait_for(lambda: transport.hello == p.Hello("1.0", "sim"))
                proc.stdin.write("tap 1A2B3C4D ttr:eu:train:red\nbogus\ntap loco\n")
                proc.stdin.flush()
                got = []
                while len(got) < 2 and (item := transport.get(timeout=10)) is not None:
                    if isinstance(item[1], p.Tag):
                        got.append(item[1])
                assert got[0] == p.Tag("1A2B3C4D", "ttr:eu:train:red")
                assert got[1].payload == "ttr:eu:train:locomotive"
            finally:
                transport.stop()
            out, err = proc.communicate("quit\n", timeout=10)
            assert proc.returncode == 0
            assert "tapped 1A2B3C4D ttr:eu:train:red" in out
            assert "commands are" in err and "Traceback" not in err
            assert not link.exists()
        finally:
            if proc.poll() is None:
                proc.kill()
