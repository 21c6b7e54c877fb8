"""scripts/lan-ipv6-allow: the unit's ExecStartPre= that lets LAN phones with global IPv6 in."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import ipaddress
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "lan-ipv6-allow"


def load() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("lan_ipv6_allow", str(SCRIPT))
    spec = importlib.util.spec_from_loader("lan_ipv6_allow", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def addr(ifname: str, *infos: tuple[str, str, int]) -> dict[str, object]:
    return {
        "ifname": ifname,
        "addr_info": [
            {"family": "inet6", "local": a, "prefixlen": n, "scope": scope} for a, scope, n in infos
        ],
    }


def test_the_lans_global_prefixes_are_found_and_nothing_else() -> None:
    links = [
        addr("lo", ("::1", "host", 128)),
        addr(
            "wlan0",
            ("2a02:8070:1:2:aaaa:bbbb:cccc:dddd", "global", 64),  # SLAAC
            ("2a02:8070:1:2::5", "global", 128),  # DHCPv6 on the same /64
            ("fd00:1::7", "global", 64),  # ULA: in the unit already
            ("fe80::1", "link", 64),
        ),
        addr("eth0", ("2a01:4f8:10:20::9", "global", 64)),
    ]
    nets = load().global_prefixes(json.dumps(links))
    assert nets == ["2a02:8070:1:2::/64", "2a01:4f8:10:20::/64"]
    phone = ipaddress.IPv6Address("2a02:8070:1:2:1234:5678:9abc:def0")
    assert phone in ipaddress.IPv6Network(nets[0])
    assert load().global_prefixes("[]") == []


def test_print_lists_this_machines_prefixes_and_never_fails() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--print"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    for line in result.stdout.split():
        assert ipaddress.IPv6Network(line).prefixlen <= 64


def test_the_unit_runs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    module = load()
    links = json.dumps([addr("wlan0", ("2a02:8070:1:2::5", "global", 64))])

    def fake_run(cmd: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, stdout=links if cmd[0] == "ip" else "")

    monkeypatch.setattr(module.subprocess, "run", fake_run)
    assert module.main(["companion.service"]) == 0
    assert calls[-1] == [
        "systemctl",
        "set-property",
        "--runtime",
        "companion.service",
        "IPAddressAllow=2a02:8070:1:2::/64",
    ]
