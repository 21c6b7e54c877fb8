"""scripts/install.sh and scripts/uninstall.sh, as far as a machine that is not a Pi allows.

Only --dry-run, staged --prefix runs and runs that stop at the machine check are made: none of
them touches the real system.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "scripts" / "install.sh"
UNINSTALL = REPO / "scripts" / "uninstall.sh"
PI_CHECK = REPO / "scripts" / "pi-check"
PI_CHECK_GUEST = REPO / "scripts" / "pi-check-guest"

PI_OS = """PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION_CODENAME={codename}
ID=debian
"""


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def sh(
    script: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(script), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def machine(tmp_path: Path, groups: tuple[str, ...]) -> dict[str, str]:
    """What the installer asks this machine, answered from files under tmp_path (never from the
    real one, where install.sh may have run: its user, its /dev, its kernel modules)."""
    accounts = tmp_path / "accounts"
    accounts.mkdir(exist_ok=True)
    (accounts / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    (accounts / "group").write_text(
        "".join(f"{g}:x:{100 + i}:\n" for i, g in enumerate(groups)), encoding="utf-8"
    )
    modules = tmp_path / "modules"
    modules.write_text("cdc_acm\nusbserial\n", encoding="utf-8")
    dev = tmp_path / "dev"
    dev.mkdir(exist_ok=True)
    return {
        "COMPANION_ACCOUNTS": str(accounts),
        "COMPANION_MODULES": str(modules),
        "COMPANION_DEV": str(dev),
    }


def fake_pi(
    tmp_path: Path, codename: str = "bookworm", model: str = "Raspberry Pi 5 Model B"
) -> dict[str, str]:
    os_release = tmp_path / "os-release"
    os_release.write_text(PI_OS.format(codename=codename), encoding="utf-8")
    model_file = tmp_path / "model"
    model_file.write_bytes(model.encode() + b" Rev 1.0\0")
    return {
        **machine(tmp_path, ("video", "gpio", "dialout")),
        "COMPANION_OS_RELEASE": str(os_release),
        "COMPANION_MODEL_FILE": str(model_file),
        "COMPANION_ARCH": "arm64",
    }


def not_a_pi(tmp_path: Path) -> dict[str, str]:
    return {
        **machine(tmp_path, ("video", "dialout")),
        "COMPANION_MODEL_FILE": str(tmp_path / "no-model"),
        "COMPANION_ARCH": "amd64",
    }


@pytest.mark.parametrize(
    "script",
    [INSTALL, UNINSTALL, PI_CHECK, PI_CHECK_GUEST],
    ids=["install", "uninstall", "pi-check", "pi-check-guest"],
)
def test_shellcheck_is_clean(script: Path) -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        if in_ci():
            pytest.fail("CI is set but shellcheck is missing: apt-get install shellcheck")
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    result = subprocess.run(
        [shellcheck, "--severity=style", str(script)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout


def test_dry_run_lists_every_step_and_changes_nothing(tmp_path: Path) -> None:
    before = {p: Path(p).exists() for p in ("/opt/companion", "/etc/companion")}
    result = sh(INSTALL, "--dry-run", env=fake_pi(tmp_path))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "note:" not in out  # a Pi 5 on Bookworm 64-bit raises no concern
    steps = [line[2:] for line in out.splitlines() if line.startswith("+ ")]
    apt = next(s for s in steps if "apt-get install" in s)
    for package in (
        "python3-picamera2",
        "python3-libcamera",
        "python3-lgpio",
        "python3-venv",
        "python3-numpy",
    ):
        assert package in apt.split()
    assert any(s.startswith("useradd --system") and s.endswith(" companion") for s in steps)
    venv = next(s for s in steps if " -m venv " in s)
    assert "--system-site-packages" in venv.split()
    assert venv.endswith(" /opt/companion/venv")
    pip = next(s for s in steps if " -m pip install " in s)
    assert pip.startswith("/opt/companion/venv/bin/python ")
    assert "--constraint /opt/companion/constraints.txt" in pip
    # built from a copy, so that a root install leaves no build/ or *.egg-info in the checkout
    assert pip.endswith(" /opt/companion/build-src")
    copy = next(s for s in steps if s.startswith("cp -R "))
    assert copy.endswith(" /opt/companion/build-src/")
    assert str(REPO / "companion") in copy.split()
    assert (
        steps.index(copy)
        < steps.index(pip)
        < steps.index("rm -rf /opt/companion/build-src", steps.index(pip))
    )
    # sudo drops DEBIAN_FRONTEND: every apt-get step sets it itself
    assert all(
        s.startswith("env DEBIAN_FRONTEND=noninteractive apt-get ") for s in steps if "apt-get" in s
    )
    usermod = ["usermod", "--append", "--groups", "video,gpio,dialout", "companion"]
    assert usermod in [shlex.split(step) for step in steps]
    assert "modprobe cdc_acm" in steps and "modprobe usbserial" in steps
    assert "/etc/modules-load.d/companion.conf" in out
    assert "install -m 0755 " + str(REPO / "scripts/lan-ipv6-allow") in out
    assert "numpy==" in out
    assert "install -m 0644 " + str(REPO / "systemd/companion.service") in out
    assert "/etc/systemd/system/companion.service" in out
    assert "/etc/udev/rules.d/99-ttr-reader.rules" in out
    assert "systemctl enable companion.service" in steps
    assert "systemctl restart companion.service" in steps
    assert ":8080/" in out
    assert "print a QR code of http://" in out
    # Ordering: packages before the venv, the unit before enabling it.
    assert steps.index(apt) < steps.index(venv) < steps.index(pip)
    assert {p: Path(p).exists() for p in before} == before


def test_trixie_is_supported_too(tmp_path: Path) -> None:
    result = sh(INSTALL, "--dry-run", env=fake_pi(tmp_path, codename="trixie"))
    assert result.returncode == 0
    assert "note:" not in result.stdout


def test_a_dry_run_off_a_pi_says_so_and_leaves_out_the_pi_packages(tmp_path: Path) -> None:
    result = sh(INSTALL, "--dry-run", env=not_a_pi(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "this is not a Raspberry Pi" in result.stdout
    assert "not 64-bit ARM" in result.stdout
    assert "continuing anyway: this run does not change the system" in result.stdout
    apt = next(line for line in result.stdout.splitlines() if "apt-get install" in line)
    assert "python3-picamera2" not in apt
    assert "python3-venv" in apt


@pytest.mark.parametrize(
    ("env_kind", "message"),
    [
        ("not_a_pi", "this is not a Raspberry Pi"),
        ("bullseye", "not supported (Bookworm or Trixie are)"),
    ],
)
def test_a_real_install_on_the_wrong_machine_stops_before_doing_anything(
    tmp_path: Path, env_kind: str, message: str
) -> None:
    env = not_a_pi(tmp_path) if env_kind == "not_a_pi" else fake_pi(tmp_path, codename="bullseye")
    result = sh(INSTALL, env=env)
    assert result.returncode == 2
    assert message in result.stderr
    assert "--dry-run" in result.stderr and "--force" in result.stderr
    assert result.stderr.count("\n") == 1  # one plain sentence
    assert "==> installing" not in result.stdout


@pytest.mark.parametrize("script", [INSTALL, UNINSTALL], ids=["install", "uninstall"])
def test_bad_options_are_one_sentence(script: Path) -> None:
    result = sh(script, "--frobnicate")
    assert result.returncode == 2
    assert "unknown option --frobnicate" in result.stderr
    refused = sh(script, "--prefix", "/")
    assert refused.returncode == 2
    assert "real system" in refused.stderr


def test_help_prints_the_usage() -> None:
    result = sh(INSTALL, "--help")
    assert result.returncode == 0
    assert "--dry-run" in result.stdout and "--prefix DIR" in result.stdout


def staged_install(
    root: Path, tmp_path: Path, *extra: str, env: dict[str, str] | None = None
) -> str:
    result = sh(
        INSTALL,
        "--prefix",
        str(root),
        "--skip-pip",
        *extra,
        env={**fake_pi(tmp_path), **(env or {})},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_a_staged_install_puts_every_file_in_place(tmp_path: Path) -> None:
    root = tmp_path / "root"
    out = staged_install(root, tmp_path)
    same = {
        "etc/systemd/system/companion.service": "systemd/companion.service",
        "etc/udev/rules.d/99-ttr-reader.rules": "systemd/99-ttr-reader.rules",
        "etc/companion/companion.toml": "systemd/companion.toml.example",
        "etc/companion/companion.env": "systemd/companion.env.example",
    }
    for staged, source in same.items():
        assert (root / staged).read_bytes() == (REPO / source).read_bytes(), staged
        assert (root / staged).stat().st_mode & 0o777 == 0o644
    cfg = (root / "opt/companion/venv/pyvenv.cfg").read_text(encoding="utf-8")
    assert "include-system-site-packages = true" in cfg
    assert (root / "opt/companion/constraints.txt").is_file()
    # Everything that would change the running system was listed and skipped.
    skipped = [line for line in out.splitlines() if "(staging, skipped)" in line]
    for command in ("apt-get install", "useradd", "systemctl enable", "udevadm control"):
        assert any(command in line for line in skipped), command
    assert sorted(p.name for p in root.iterdir()) == ["etc", "opt"]
    modules = (root / "etc/modules-load.d/companion.conf").read_text(encoding="utf-8")
    assert [m for m in modules.splitlines() if not m.startswith("#")] == ["cdc_acm", "usbserial"]
    assert (root / "opt/companion/lan-ipv6-allow").stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize(("camera", "backend"), [(False, "none"), (True, "v4l2")])
def test_off_a_pi_the_new_config_names_a_camera_that_is_there(
    tmp_path: Path, camera: bool, backend: str
) -> None:
    env = not_a_pi(tmp_path)
    if camera:
        (Path(env["COMPANION_DEV"]) / "video0").write_bytes(b"")
    root = tmp_path / "root"
    result = sh(INSTALL, "--prefix", str(root), "--skip-pip", env=env)
    assert result.returncode == 0, result.stderr
    toml = (root / "etc/companion/companion.toml").read_text(encoding="utf-8")
    assert f'\nbackend = "{backend}"' in toml
    assert 'backend = "picamera2"' not in toml
    assert f'[camera] backend = \\"{backend}\\"'.replace("\\", "") in result.stdout
    # the group missing here (gpio) is left out rather than failing the unit later
    assert "group gpio does not exist here" in result.stdout
    assert "usermod --append --groups video\\,dialout companion" in result.stdout
    # a second run keeps the file, whatever is plugged in by then
    (root / "etc/companion/companion.toml").write_text(toml + "# mine\n", encoding="utf-8")
    again = sh(INSTALL, "--prefix", str(root), "--skip-pip", env=env)
    assert again.returncode == 0, again.stderr
    assert (root / "etc/companion/companion.toml").read_text(encoding="utf-8").endswith("# mine\n")


def test_the_installer_writes_nothing_into_the_checkout(tmp_path: Path) -> None:
    """Run as root from a user's checkout, nothing root-owned may stay behind in it."""
    src = tmp_path / "src"
    for name in ("scripts", "systemd", "companion", "web"):
        shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    before = sorted(str(p.relative_to(src)) for p in src.rglob("*"))
    env = {**fake_pi(tmp_path), "COMPANION_SYSTEM_PYTHON": sys.executable}
    result = sh(
        src / "scripts/install.sh", "--prefix", str(tmp_path / "root"), "--skip-pip", env=env
    )
    assert result.returncode == 0, result.stderr
    assert ":8080/" in result.stdout  # the configuration was read with the checkout's code
    assert sorted(str(p.relative_to(src)) for p in src.rglob("*")) == before


def test_a_second_staged_run_keeps_the_settings_and_the_venv(tmp_path: Path) -> None:
    root = tmp_path / "root"
    staged_install(root, tmp_path)
    toml = root / "etc/companion/companion.toml"
    toml.write_text("[server]\nport = 9090\n", encoding="utf-8")
    marker = root / "opt/companion/venv/marker"
    marker.write_text("still here", encoding="utf-8")
    out = staged_install(root, tmp_path)
    assert toml.read_text(encoding="utf-8") == "[server]\nport = 9090\n"
    assert "kept your /etc/companion/companion.toml" in out
    assert "venv exists" in out
    assert marker.exists()
    assert ":9090/" in out  # the URL follows the configured port


def test_a_broken_config_still_finishes_with_a_plain_message(tmp_path: Path) -> None:
    root = tmp_path / "root"
    staged_install(root, tmp_path)
    (root / "etc/companion/companion.toml").write_text("[server]\nport = 0\n", encoding="utf-8")
    result = sh(INSTALL, "--prefix", str(root), "--skip-pip", env=fake_pi(tmp_path))
    assert result.returncode == 0
    assert "[server] port must be between 1 and 65535, got 0" in result.stderr
    assert ":8080/" in result.stdout
    assert "Traceback" not in result.stderr


def test_a_venv_without_system_site_packages_is_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "root"
    staged_install(root, tmp_path)
    cfg = root / "opt/companion/venv/pyvenv.cfg"
    cfg.write_text(cfg.read_text().replace("= true", "= false"), encoding="utf-8")
    out = staged_install(root, tmp_path)
    assert "venv exists" not in out
    assert "include-system-site-packages = true" in cfg.read_text(encoding="utf-8")


def test_numpy_is_pinned_to_the_one_the_system_python_sees(tmp_path: Path) -> None:
    import numpy

    root = tmp_path / "root"
    out = staged_install(root, tmp_path, env={"COMPANION_SYSTEM_PYTHON": sys.executable})
    constraints = (root / "opt/companion/constraints.txt").read_text(encoding="utf-8")
    assert f"numpy=={numpy.__version__}\n" in constraints
    assert f"numpy pinned to the system's {numpy.__version__}" in out


def test_no_numpy_pin_when_the_system_python_has_none(tmp_path: Path) -> None:
    python = shutil.which("python3", path="/usr/bin")
    if python is None:
        pytest.skip("no /usr/bin/python3")
    has_numpy = subprocess.run([python, "-c", "import numpy"], capture_output=True).returncode == 0
    root = tmp_path / "root"
    staged_install(root, tmp_path, env={"COMPANION_SYSTEM_PYTHON": python})
    constraints = (root / "opt/companion/constraints.txt").read_text(encoding="utf-8")
    assert ("numpy==" in constraints) == has_numpy


def test_uninstall_removes_the_service_and_keeps_the_games_unless_purged(tmp_path: Path) -> None:
    root = tmp_path / "root"
    staged_install(root, tmp_path)
    games = root / "var/lib/companion"
    games.mkdir(parents=True)
    (games / "events.sqlite").write_bytes(b"game")
    result = sh(UNINSTALL, "--prefix", str(root))
    assert result.returncode == 0, result.stderr
    assert not (root / "etc/systemd/system/companion.service").exists()
    assert not (root / "etc/udev/rules.d/99-ttr-reader.rules").exists()
    assert not (root / "opt/companion").exists()
    assert (games / "events.sqlite").exists()
    assert (root / "etc/companion/companion.toml").exists()
    assert "(staging, skipped) systemctl daemon-reload" in result.stdout
    again = sh(UNINSTALL, "--prefix", str(root))  # idempotent
    assert again.returncode == 0, again.stderr
    purge = sh(UNINSTALL, "--prefix", str(root), "--purge")
    assert purge.returncode == 0, purge.stderr
    assert not games.exists()
    assert not (root / "etc/companion").exists()


def test_uninstall_dry_run_lists_the_steps() -> None:
    result = sh(UNINSTALL, "--dry-run", "--purge")
    assert result.returncode == 0
    steps = [line[2:] for line in result.stdout.splitlines() if line.startswith("+ ")]
    assert steps[0] == "systemctl disable --now companion.service"
    assert "rm -rf -- /opt/companion" in steps
    assert "rm -rf -- /var/lib/companion" in steps
    assert "userdel companion" in steps
