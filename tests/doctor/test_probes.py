"""The facts from the OS and the devices, each through its interface (fakes, temporary files,
the simulated reader on a pty)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from companion.doctor.probes import (
    FakeClock,
    FakeRouting,
    StdlibNetwork,
    SystemClock,
    local_addresses,
    os_name,
    probe_reader,
    read_backup,
    storage_facts,
    versions,
)
from companion.doctor.runner import Setup, network_lines, run
from companion.reader.simulated import SimulatedReader


def answer(stdout: str, code: int = 0) -> Any:
    def run(args: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        assert args == ["timedatectl", "show", "-p", "NTPSynchronized", "--value"]
        return subprocess.CompletedProcess(args, code, stdout=stdout, stderr="")

    return run


def test_the_clock_asks_timedatectl() -> None:
    assert SystemClock(answer("yes\n")).synchronized() is True
    assert SystemClock(answer("no\n")).synchronized() is False
    assert SystemClock(answer("", 1)).synchronized() is None
    assert SystemClock(answer("maybe")).synchronized() is None

    def missing(*a: Any, **k: Any) -> Any:
        raise FileNotFoundError("timedatectl")

    assert SystemClock(missing).synchronized() is None
    assert FakeClock(False).synchronized() is False


def test_storage_facts(tmp_path: Path) -> None:
    (tmp_path / "companion.sqlite3").write_bytes(b"x" * 3000)
    (tmp_path / "companion.sqlite3-wal").write_bytes(b"x" * 1000)
    facts = storage_facts(tmp_path, now=123.0)
    assert facts.log_bytes == 4000 and facts.free_bytes > 0 and facts.now == 123.0
    assert facts.backup is None
    record = {"time": 100, "dest": "/media/usb/b", "events": 42}
    (tmp_path / "last-backup.json").write_text(json.dumps(record), encoding="utf-8")
    assert storage_facts(tmp_path).backup == record
    (tmp_path / "last-backup.json").write_text("{broken", encoding="utf-8")
    assert read_backup(tmp_path) == {}
    # a state directory not made yet: its parent's file system
    assert storage_facts(tmp_path / "new" / "dir").free_bytes > 0
    assert storage_facts(tmp_path / "new" / "dir").readable


def test_a_state_directory_closed_to_this_user(tmp_path: Path) -> None:
    (tmp_path / "last-backup.json").write_text('{"time": 1}')
    (tmp_path / "companion.sqlite3").write_bytes(b"x" * 10)
    asked: list[int] = []

    def closed(path: Path, mode: int) -> bool:
        asked.append(mode)
        return False

    facts = storage_facts(tmp_path, access=closed)
    assert asked and not facts.readable and facts.backup is None
    assert storage_facts(tmp_path, access=lambda p, m: True).backup == {"time": 1}


FIB = """Main:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     +-- 10.42.0.0/24 2 0 2
        |-- 10.42.0.0
           /24 link UNICAST
        |-- 10.42.0.1
           /32 host LOCAL
     +-- 127.0.0.0/8 2 0 2
        |-- 127.0.0.1
           /32 host LOCAL
Local:
  +-- 0.0.0.0/0 3 0 5
        |-- 10.42.0.1
           /32 host LOCAL
"""


def test_the_stdlib_network_reads_the_kernels_table(tmp_path: Path) -> None:
    fib = tmp_path / "fib_trie"
    fib.write_text(FIB, encoding="ascii")
    assert local_addresses(fib) == ["10.42.0.1", "127.0.0.1"]
    assert local_addresses(tmp_path / "none") == []
    avahi = tmp_path / "avahi.pid"
    status = StdlibNetwork(fib, avahi).status()
    assert status.addresses == ("10.42.0.1", "127.0.0.1")
    assert status.mode == "unknown" and status.mdns is None
    avahi.write_text("1\n")
    assert str(StdlibNetwork(fib, avahi).status().mdns).endswith(".local")


def test_a_broken_network_object_falls_back_to_the_stdlib() -> None:
    class Broken:
        def status(self) -> Any:
            raise RuntimeError("no D-Bus")

    lines = network_lines(Broken())
    assert [c.id for c in lines] == ["network.addresses", "network.mode", "network.mdns"]
    assert lines[1].code == "doctor.network.mode_unknown"


def test_versions_and_os(tmp_path: Path) -> None:
    v = versions()
    assert set(v) == {"companion", "python", "numpy", "opencv", "os"}
    rel = tmp_path / "os-release"
    rel.write_text('NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 13 (trixie)"\n')
    assert os_name(rel) == "Debian GNU/Linux 13 (trixie)"
    assert os_name(tmp_path / "missing")


def test_the_simulated_reader_answers_and_a_tap_comes_through(tmp_path: Path) -> None:
    sim = SimulatedReader(tmp_path / "reader", fw_version="1.3", chip="sim").start()
    try:
        facts = probe_reader(
            sim.path, hello_seconds=3.0, tap_seconds=3.0, when_ready=lambda: sim.tap("04AA11BB")
        )
    finally:
        sim.close()
    assert facts.opened and facts.firmware == "1.3" and facts.chip == "sim"
    assert facts.tap_seconds is not None and facts.tap_seconds < 3.0


def test_a_tap_that_never_comes_and_a_reader_that_is_not_there(tmp_path: Path) -> None:
    sim = SimulatedReader(tmp_path / "reader").start()
    try:
        facts = probe_reader(sim.path, hello_seconds=3.0, tap_seconds=0.3)
    finally:
        sim.close()
    assert facts.firmware == "1.0" and facts.tap_seconds is None and facts.tap_waited == 0.3
    gone = probe_reader(str(tmp_path / "nothing"), hello_seconds=0.1)
    assert not gone.opened and gone.problem


@pytest.mark.parametrize("synced", [True, False])
def test_the_runner_orders_every_area(tmp_path: Path, synced: bool) -> None:
    class Net:
        def status(self) -> Any:
            from tests.doctor.test_checks import Net as N

            return N()

    checks = run(Setup(tmp_path, network=Net(), clock=FakeClock(synced), routing=FakeRouting()))
    ids = [c.id for c in checks]
    assert ids == [
        "camera.found",
        "reader.found",
        "controls.found",
        "storage.free",
        "storage.log",
        "storage.backup",
        "network.addresses",
        "network.mode",
        "network.mdns",
        "network.routing",
        "clock.sync",
        "versions.software",
    ]
    assert checks[7].code == "doctor.network.mode_hotspot"
    assert checks[9].code == "doctor.network.routing_not_installed"  # FakeRouting's default
    assert checks[10].status == ("ok" if synced else "warn")
