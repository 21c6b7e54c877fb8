"""The service package's shape: the pure modules load neither the loop, the store nor Flask, and
the names code imports from ``companion.service`` are all there."""

from __future__ import annotations

import json
import subprocess
import sys

import companion.service

PURE = ("errors", "shapes", "describe", "auth", "fold", "pending", "views", "camera")


def test_the_pure_modules_load_no_thread_store_or_web_app() -> None:
    code = (
        "import json, sys\n"
        + "".join(f"import companion.service.{m}\n" for m in PURE)
        + "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(json.loads(out))
    assert {f"companion.service.{m}" for m in PURE} <= loaded
    for module in (
        "companion.store",
        "companion.service.loop",
        "companion.service.streams",
        "companion.service.ledger",
        "companion.service.facade",
        "flask",
        "sqlite3",
        "queue",
        "concurrent.futures",
    ):
        assert module not in loaded, module


def test_every_exported_name_resolves() -> None:
    for name in companion.service.__all__:
        assert getattr(companion.service, name).__module__.startswith("companion.service.")
    assert companion.service.Service.__module__ == "companion.service.facade"
