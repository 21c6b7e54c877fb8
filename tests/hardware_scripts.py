"""The scripts of hardware/ (they run by path, not as a package), loaded or run for the tests."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
HARDWARE = REPO / "hardware"


def load(name: str) -> ModuleType:
    """hardware/``name``.py imported as the module ``hw_<name>``."""
    spec = importlib.util.spec_from_file_location(f"hw_{name}", HARDWARE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def make_table_card(out: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`make_printables.py --table-card --out OUT ARGS...` as its own process, on this repo's
    code only (a bare PATH), ``stdin`` on its standard input (a pipe, not a terminal): its exit
    code and what it printed."""
    return subprocess.run(
        [sys.executable, str(HARDWARE / "make_printables.py"), "--table-card", "--out", str(out),
         *args],
        input=stdin, capture_output=True, text=True, timeout=60, check=False,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
