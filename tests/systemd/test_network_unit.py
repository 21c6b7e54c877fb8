"""systemd/companion-network.service: `systemd-analyze verify` has nothing to say, its exposure
is OK, and it runs `companion network auto` as the installer and the contract expect."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest
from test_unit_files import EXEC, MAX_EXPOSURE, SYSTEMD, run_analyze, stage_root, systemd_analyze

UNIT = SYSTEMD / "companion-network.service"


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    systemd_analyze()
    root = stage_root(tmp_path_factory.mktemp("root"), (SYSTEMD / "companion.service").read_text())
    (root / "etc/systemd/system/companion-network.service").write_text(UNIT.read_text())
    return root


def test_verify_has_no_complaint(staged: Path) -> None:
    result = run_analyze("verify", f"--root={staged}", "companion-network.service")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "" and result.stdout.strip() == ""


def test_exposure_is_ok(staged: Path) -> None:
    result = run_analyze(
        "security", "--offline=yes", f"--root={staged}",
        f"--threshold={int(MAX_EXPOSURE * 10)}", "companion-network.service",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    level = float(
        result.stdout.rsplit("exposure level for companion-network.service:", 1)[1].split()[0]
    )
    assert level <= MAX_EXPOSURE


def test_it_runs_auto_once_at_boot_as_root() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read_string(UNIT.read_text())
    svc = unit["Service"]
    assert svc["ExecStart"] == f"{EXEC} network auto --state-dir /var/lib/companion"
    assert (svc["Type"], svc["RemainAfterExit"]) == ("oneshot", "yes")
    assert "User" not in svc  # root: NetworkManager lets root make the network without polkit
    # a StateDirectory= here would hand the companion's state directory to root
    assert "StateDirectory" not in svc and svc["ReadWritePaths"] == "-/var/lib/companion"
    assert set(svc["CapabilityBoundingSet"].split()) == {"CAP_DAC_OVERRIDE", "CAP_CHOWN"}
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert "NetworkManager.service" in unit["Unit"]["After"]
