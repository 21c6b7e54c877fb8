"""A fake ``nmcli`` on PATH (tests/network/fake_nmcli.py) with a world the test writes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

FAKE = Path(__file__).with_name("fake_nmcli.py")


def base_world() -> dict[str, Any]:
    """A Pi as it boots: a Wi-Fi radio and an unplugged Ethernet port, no profiles, two
    networks in range (one with a name that needs escaping)."""
    return {
        "running": True,
        "radio": "enabled",
        "devices": [
            {"name": "lo", "type": "loopback"},
            {"name": "eth0", "type": "ethernet"},
            {"name": "wlan0", "type": "wifi"},
            {"name": "p2p-dev-wlan0", "type": "wifi-p2p"},
        ],
        "profiles": {"lo": {"type": "loopback", "autoconnect": "no"}},
        "active": {"lo": "lo"},
        "around": [
            {"ssid": "Cafe:2F\\east", "signal": 71, "security": "WPA1 WPA2",
             "password": "espresso-42", "address": "192.168.7.31/24"},
            {"ssid": "Library", "signal": 40, "security": "", "password": None,
             "address": "172.16.3.9/16"},
        ],
    }  # fmt: skip


class FakeNmcli:
    def __init__(self, root: Path) -> None:
        self.bin = root / "bin"
        self.bin.mkdir()
        exe = self.bin / "nmcli"
        exe.write_text(f"#!{sys.executable}\nimport runpy, sys\nsys.argv[0] = {str(FAKE)!r}\n"
                       f"runpy.run_path({str(FAKE)!r}, run_name='__main__')\n")  # fmt: skip
        exe.chmod(0o755)
        self.world_path = root / "world.json"
        self.log_path = root / "nmcli.log"
        self.log_path.write_text("")
        self.world = base_world()

    @property
    def world(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.world_path.read_text())
        return data

    @world.setter
    def world(self, value: dict[str, Any]) -> None:
        self.world_path.write_text(json.dumps(value))

    def change(self, **items: Any) -> None:
        w = self.world
        w.update(items)
        self.world = w

    def calls(self) -> list[list[str]]:
        return [json.loads(line) for line in self.log_path.read_text().splitlines()]

    def passwd_files(self) -> list[dict[str, Any]]:
        """What nmcli found in each ``passwd-file`` it was given (modes, owner, secrets)."""
        path = self.world_path.with_name("passwd-files.jsonl")
        lines = path.read_text().splitlines() if path.exists() else []
        return [json.loads(line) for line in lines]

    def forget_calls(self) -> None:
        self.log_path.write_text("")

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
            "FAKE_NMCLI_WORLD": str(self.world_path),
            "FAKE_NMCLI_LOG": str(self.log_path),
        }


@pytest.fixture
def nmcli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeNmcli:
    fake = FakeNmcli(tmp_path)
    for key, value in fake.env().items():
        if os.environ.get(key) != value:
            monkeypatch.setenv(key, value)
    return fake
