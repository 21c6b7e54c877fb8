"""The box routes nothing: systemd/companion-firewall.nft (the table ``inet companion``, a
forward chain with policy drop) and the NetworkManager dispatcher script that turns IPv4
forwarding off again after the box's own network (systemd/companion-no-forward.dispatcher).

The forwarding test runs tests/network/nsforward.sh in a private user and network namespace
(``unshare -rn``) with a phone and a venue's network in namespaces of their own: every packet
stays in namespaces the test made. Without nft, ip, unshare or user namespaces these tests skip,
except under CI, where they fail (they are part of what CI promises)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "systemd/companion-firewall.nft"
DISPATCHER = REPO / "systemd/companion-no-forward.dispatcher"
HARNESS = Path(__file__).with_name("nsforward.sh")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    if found is None:
        if in_ci():
            pytest.fail(f"CI is set but {name} is missing (scripts/dev installs it)")
        pytest.skip(f"{name} is not installed")
    return found


def namespaced(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``argv`` as root of a new user and network namespace of its own."""
    unshare = tool("unshare")
    probe = subprocess.run(
        [unshare, "-rn", "true"], capture_output=True, text=True, timeout=30, check=False
    )
    if probe.returncode != 0:
        if in_ci():
            pytest.fail(f"CI is set but unshare -rn is refused: {probe.stderr.strip()}")
        pytest.skip(f"no user namespaces here: {probe.stderr.strip()}")
    nft, ip = tool("nft"), tool("ip")
    tool("nsenter")
    path = os.pathsep.join(
        [os.path.dirname(nft), os.path.dirname(ip), os.environ.get("PATH", "/usr/bin:/bin")]
    )
    return subprocess.run(
        [unshare, "-rn", *argv],
        capture_output=True, text=True, timeout=timeout, check=False,
        env={**os.environ, "PATH": path},
    )  # fmt: skip


def test_the_rule_set_checks_and_touches_only_its_own_table() -> None:
    done = namespaced(tool("nft"), "-c", "-f", str(RULES))
    assert done.returncode == 0, done.stderr
    text = RULES.read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    statements = [line for line in lines if line and not line.startswith("#")]
    # no "flush ruleset": NetworkManager's tables and the owner's stay as they are
    assert not any(s.startswith("flush") for s in statements)
    assert statements[:2] == ["table inet companion", "delete table inet companion"]
    assert "type filter hook forward priority filter; policy drop;" in statements
    assert not any(s.startswith("chain input") or "hook input" in s for s in statements)


@pytest.fixture(scope="module")
def forwarding() -> dict[str, str]:
    done = namespaced(
        "bash", str(HARNESS), str(RULES), str(DISPATCHER), sys.executable, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    said: dict[str, str] = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        said[key] = value.strip()
    return said


def test_without_the_table_the_namespace_routes(forwarding: dict[str, str]) -> None:
    # the set-up can tell: with forwarding on and no table, the phone reaches the venue
    assert forwarding["routes-without-table"] == "yes"
    assert forwarding["routes-v6-without-table"] == "yes"


def test_with_the_table_nothing_is_routed_and_every_packet_is_counted(
    forwarding: dict[str, str],
) -> None:
    assert forwarding["tables"].split() == ["table", "inet", "companion"]  # loaded twice: one
    assert (forwarding["routes-udp"], forwarding["routes-tcp"], forwarding["routes-v6"]) == (
        "no",
        "no",
        "no",
    )
    # 3 datagrams over IPv4, 3 over IPv6 and at least one TCP SYN
    assert int(forwarding["dropped"]) >= 7


def test_the_phones_still_reach_the_box_itself(forwarding: dict[str, str]) -> None:
    for what in ("box-dns", "box-dhcp", "box-mdns", "box-dashboard", "box-dashboard-80"):
        assert forwarding[what] == "yes", what
    assert forwarding["box-dashboard-no-forward"] == "yes"


def test_the_dispatcher_turns_forwarding_off_for_the_box_network_only(
    forwarding: dict[str, str],
) -> None:
    assert forwarding["forward-after-other"] == "1"  # another connection: left alone
    assert forwarding["forward-after-pre-up"] == "1"  # before NetworkManager turns it on
    assert forwarding["forward-after-up"] == "0"
    assert forwarding["forward-after-down"] == "0"
    assert "forwarding off again" in forwarding["dispatcher-said"]


def test_the_dispatcher_is_executable_and_plain_sh() -> None:
    # NetworkManager runs only root-owned, executable scripts that others cannot write
    mode = DISPATCHER.stat().st_mode
    assert mode & 0o111 and not mode & 0o022
    assert DISPATCHER.read_text(encoding="utf-8").startswith("#!/bin/sh\n")


@pytest.mark.parametrize("script", [DISPATCHER, HARNESS], ids=["dispatcher", "nsforward"])
def test_shellcheck_is_clean(script: Path) -> None:
    done = subprocess.run(
        [tool("shellcheck"), "--severity=style", str(script)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout
