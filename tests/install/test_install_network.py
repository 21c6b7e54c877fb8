"""The installer's network parts: NetworkManager and Avahi, the boot-time
companion-network.service, the polkit rule that lets the companion user ask NetworkManager for
the box's network, the host name companion (companion.local); --no-network and --keep-hostname.
The polkit rule itself is run by node against a stand-in polkit."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from test_install_script import INSTALL, REPO, UNINSTALL, fake_pi, sh, staged_install

NETWORK_PACKAGES = (
    "network-manager",
    "dnsmasq-base",  # NetworkManager's shared mode: DHCP and DNS for the phones
    "nftables",  # ... and its forwarding and masquerading rules
    "wpasupplicant",
    "wireless-regdb",  # the country's Wi-Fi channels (else the kernel's "world" rules)
    "avahi-daemon",
    "libnss-mdns",
)
RULE = REPO / "systemd/companion-network.rules"
FIREWALL_RULES = REPO / "systemd/companion-firewall.nft"
FIREWALL_UNIT = REPO / "systemd/companion-firewall.service"
DISPATCHER = REPO / "systemd/companion-no-forward.dispatcher"


def steps_of(out: str) -> list[str]:
    return [line[2:] for line in out.splitlines() if line.startswith("+ ")]


def test_dry_run_installs_the_network_parts(tmp_path: Path) -> None:
    result = sh(INSTALL, "--dry-run", env=fake_pi(tmp_path))
    assert result.returncode == 0, result.stderr
    steps = steps_of(result.stdout)
    apt = next(s for s in steps if "apt-get install" in s).split()
    assert all(p in apt for p in NETWORK_PACKAGES)
    assert (
        "install -m 0644 "
        + str(REPO / "systemd/companion-network.service")
        + (" /etc/systemd/system/companion-network.service")
        in steps
    )
    assert f"install -m 0644 {RULE} /etc/polkit-1/rules.d/50-companion-network.rules" in steps
    assert "systemctl enable companion-network.service" in steps
    # never started by the installer: it may switch the Wi-Fi under the session that installs
    assert not any(
        "start companion-network" in s or "restart companion-network" in s for s in steps
    )
    assert (
        "systemctl enable NetworkManager.service NetworkManager-dispatcher.service "
        "avahi-daemon.service" in steps
    )
    if socket.gethostname() != "companion":
        assert "hostnamectl set-hostname companion" in steps
        assert any(s.startswith("sed -i -E") and s.endswith(" /etc/hosts") for s in steps)
    assert steps.index("systemctl daemon-reload") < steps.index(
        "systemctl enable companion-network.service"
    )


def test_dry_run_makes_the_box_route_nothing(tmp_path: Path) -> None:
    result = sh(INSTALL, "--dry-run", env=fake_pi(tmp_path))
    assert result.returncode == 0, result.stderr
    steps = steps_of(result.stdout)
    rules = f"install -m 0644 {FIREWALL_RULES} /opt/companion/companion-firewall.nft"
    unit = f"install -m 0644 {FIREWALL_UNIT} /etc/systemd/system/companion-firewall.service"
    hook = f"install -m 0755 {DISPATCHER} /etc/NetworkManager/dispatcher.d/90-companion-no-forward"
    assert {rules, unit, hook} <= set(steps)
    # never Debian's /etc/nftables.conf (the owner's; its "flush ruleset" would take all)
    assert "/etc/nftables.conf" not in result.stdout
    assert steps.index(rules) > steps.index("install -d -m 0755 /opt/companion")
    assert (
        steps.index(unit)
        < steps.index("systemctl daemon-reload")
        < steps.index("systemctl enable companion-firewall.service")
        < steps.index("systemctl restart companion-firewall.service")
        < steps.index("sysctl -q -w net.ipv4.ip_forward=0")
    )


def test_no_network_and_keep_hostname(tmp_path: Path) -> None:
    result = sh(INSTALL, "--dry-run", "--no-network", env=fake_pi(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "companion-network" not in result.stdout and "polkit" not in result.stdout
    assert "companion-firewall" not in result.stdout and "dispatcher" not in result.stdout
    assert "ip_forward" not in result.stdout
    apt = next(s for s in steps_of(result.stdout) if "apt-get install" in s).split()
    assert not any(p in apt for p in NETWORK_PACKAGES)
    assert "hostnamectl" not in result.stdout
    kept = sh(INSTALL, "--dry-run", "--keep-hostname", env=fake_pi(tmp_path))
    assert kept.returncode == 0 and "hostnamectl" not in kept.stdout
    assert "systemctl enable companion-network.service" in steps_of(kept.stdout)


def test_staged_files_and_uninstall(tmp_path: Path) -> None:
    root = tmp_path / "root"
    staged_install(root, tmp_path)
    for staged, source in {
        "etc/systemd/system/companion-network.service": "systemd/companion-network.service",
        "etc/polkit-1/rules.d/50-companion-network.rules": "systemd/companion-network.rules",
        "etc/systemd/system/companion-firewall.service": "systemd/companion-firewall.service",
        "opt/companion/companion-firewall.nft": "systemd/companion-firewall.nft",
    }.items():
        assert (root / staged).read_bytes() == (REPO / source).read_bytes(), staged
        assert (root / staged).stat().st_mode & 0o777 == 0o644
    hook = root / "etc/NetworkManager/dispatcher.d/90-companion-no-forward"
    assert hook.read_bytes() == DISPATCHER.read_bytes()
    assert hook.stat().st_mode & 0o777 == 0o755  # NetworkManager runs it: not writable by others
    result = sh(UNINSTALL, "--prefix", str(root))
    assert result.returncode == 0, result.stderr
    assert not (root / "etc/systemd/system/companion-network.service").exists()
    assert not (root / "etc/polkit-1/rules.d/50-companion-network.rules").exists()
    assert not (root / "etc/systemd/system/companion-firewall.service").exists()
    assert not hook.exists()
    dry = sh(UNINSTALL, "--dry-run")
    assert "nmcli connection delete id companion-hotspot" in steps_of(dry.stdout)
    # stopping the unit deletes its own table only
    assert "systemctl disable --now companion-firewall.service" in steps_of(dry.stdout)


NODE_HARNESS = """
const fs = require("fs");
const rules = [];
const polkit = {
  Result: { YES: "yes", NO: "no", NOT_HANDLED: null },
  addRule: (f) => rules.push(f),
};
new Function("polkit", fs.readFileSync(process.argv[2], "utf8"))(polkit);
const out = {};
for (const [user, id] of JSON.parse(process.argv[3])) {
  out[`${user} ${id}`] = rules.map((f) => f({ id }, { user })).find((r) => r !== null) ?? null;
}
console.log(JSON.stringify(out));
"""


def test_the_polkit_rule_grants_the_companion_user_exactly_the_network_actions(
    tmp_path: Path,
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    nm = "org.freedesktop.NetworkManager."
    granted = [
        "network-control",
        "settings.modify.system",
        "wifi.scan",
        "wifi.share.open",
        "wifi.share.protected",
        "enable-disable-wifi",
    ]
    refused = ["settings.modify.hostname", "reload", "sleep-wake", "enable-disable-network"]
    asks = [["companion", nm + a] for a in granted + refused]
    asks += [["pi", nm + "network-control"], ["companion", "org.freedesktop.login1.reboot"]]
    harness = tmp_path / "harness.js"
    harness.write_text(NODE_HARNESS, encoding="utf-8")
    done = subprocess.run(
        [node, str(harness), str(RULE), json.dumps(asks)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    answers = json.loads(done.stdout)
    wanted = {nm + a for a in granted}
    assert answers == {
        f"{u} {a}": "yes" if u == "companion" and a in wanted else None for u, a in asks
    }
