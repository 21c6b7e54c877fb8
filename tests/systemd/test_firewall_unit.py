"""systemd/companion-firewall.service: `systemd-analyze verify` has nothing to say, its exposure
is OK, and it loads the table inet companion at boot, before NetworkManager, after Debian's
nftables.service (which flushes the whole ruleset)."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest
from test_unit_files import MAX_EXPOSURE, SYSTEMD, run_analyze, stage_root, systemd_analyze

UNIT = SYSTEMD / "companion-firewall.service"
NAME = "companion-firewall.service"
NFT = "/usr/sbin/nft"
RULES = "/opt/companion/companion-firewall.nft"


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    systemd_analyze()
    root: Path = stage_root(
        tmp_path_factory.mktemp("root"), (SYSTEMD / "companion.service").read_text()
    )
    (root / "etc/systemd/system" / NAME).write_text(UNIT.read_text())
    stub = root / NFT.lstrip("/")
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    stub.chmod(0o755)
    return root


def test_verify_has_no_complaint(staged: Path) -> None:
    result = run_analyze("verify", f"--root={staged}", NAME)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "" and result.stdout.strip() == ""


def test_exposure_is_ok(staged: Path) -> None:
    result = run_analyze(
        "security", "--offline=yes", f"--root={staged}",
        f"--threshold={int(MAX_EXPOSURE * 10)}", NAME,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    level = float(result.stdout.rsplit(f"exposure level for {NAME}:", 1)[1].split()[0])
    assert level <= MAX_EXPOSURE


def test_it_loads_its_own_table_early_and_follows_nftables_service() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read_string(UNIT.read_text())
    svc, head = unit["Service"], unit["Unit"]
    assert svc["ExecStart"] == svc["ExecReload"] == f"{NFT} -f {RULES}"
    assert svc["ExecStop"] == f"-{NFT} delete table inet companion"  # never "flush ruleset"
    assert (svc["Type"], svc["RemainAfterExit"]) == ("oneshot", "yes")
    assert svc["CapabilityBoundingSet"] == "CAP_NET_ADMIN"
    # before NetworkManager (After=network-pre.target) opens the box's network
    assert "network-pre.target" in head["Before"].split()
    assert "network-pre.target" in head["Wants"].split()
    # nftables.service flushes the ruleset when it starts or reloads: load the table after it
    assert "nftables.service" in head["After"].split()
    assert head["PartOf"] == head["ReloadPropagatedFrom"] == "nftables.service"
    assert unit["Install"]["WantedBy"] == "sysinit.target"
