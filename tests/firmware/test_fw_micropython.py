"""The firmware's pure modules under real MicroPython give CPython's answers.

npm's ``@micropython/micropython-webassembly-pyscript`` (MicroPython v1.27 built for
WebAssembly) runs under node: firmware/*.py and tests/firmware/fw_probe.py go into its file
system, the probe asks ttrproto, ndef, debounce and a ReaderLoop over a fake chip every question
of tests/vectors/reader_protocol.json, and its answers must equal the same probe's under CPython.

The package is looked for in $COMPANION_MPY_WASM (a directory holding node_modules/), else in
.cache/micropython-wasm of the checkout, where ``scripts/dev test`` installs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import fw_probe
import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FIRMWARE = REPO / "firmware"
VECTORS = REPO / "tests" / "vectors" / "reader_protocol.json"
PACKAGE = "@micropython/micropython-webassembly-pyscript"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(what: str) -> None:
    if in_ci():
        pytest.fail(f"CI is set but {what} (scripts/dev test installs it)")
    pytest.skip(f"{what} (scripts/dev test installs it)")


@pytest.fixture(scope="module")
def micropython() -> dict[str, Any]:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        missing("node is not installed (apt-get install nodejs)")
    base = Path(os.environ.get("COMPANION_MPY_WASM", REPO / ".cache" / "micropython-wasm"))
    package = base / "node_modules" / PACKAGE
    if not (package / "micropython.mjs").is_file():
        missing(f"{PACKAGE} is not in {base}")
    result = subprocess.run(
        [
            str(node),
            str(HERE / "mpy_run.mjs"),
            str(package),
            str(FIRMWARE),
            str(HERE),
            str(VECTORS),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture(scope="module")
def cpython(vectors: dict[str, Any]) -> dict[str, Any]:
    # through JSON as MicroPython's answers are (tuples become lists)
    answers: dict[str, Any] = json.loads(json.dumps(fw_probe.answers(vectors)))
    return answers


def test_it_is_really_micropython_1_27(micropython: dict[str, Any]) -> None:
    assert micropython["implementation"] == "micropython"
    assert "MicroPython v1.27" in micropython["version"]


@pytest.mark.parametrize("part", ["protocol", "ndef", "debounce", "readerloop"])
def test_micropython_answers_equal_cpythons(
    micropython: dict[str, Any], cpython: dict[str, Any], part: str
) -> None:
    assert micropython["answers"][part] == cpython[part]


def test_the_answers_are_the_vectors_answers(
    cpython: dict[str, Any], vectors: dict[str, Any]
) -> None:
    """What both agree on is the protocol's answer, not a shared mistake."""
    proto = cpython["protocol"]
    assert proto["checksum"] == [c["checksum"] for c in vectors["checksum"]]
    assert [a[0] for a in proto["device_messages"]] == ["ok"] * len(vectors["device_messages"])
    assert [a[1] for a in proto["rejected_lines"]] == [
        c["reason"] for c in vectors["rejected_lines"]
    ]
    assert [a[1] for a in proto["rejected_commands"]] == [
        c["reason"] for c in vectors["rejected_commands"]
    ]
    assert [a[2] for a in proto["rejected_commands"]] == [
        c["n"] for c in vectors["rejected_commands"]
    ]
    assert cpython["ndef"]["build"] == [c["area_hex"] for c in vectors["ndef_build"]]
    assert [a[1] for a in cpython["ndef"]["parse"]] == [c["text"] for c in vectors["ndef_parse"]]
    assert cpython["debounce"] == [c["events"] for c in vectors["debounce"]]
    session = cpython["readerloop"]
    assert session["lines"][0] == "HELLO ttr-reader 1.0 rc522*33\n"
    assert "NAK 8 write-failed*2F\n" in session["lines"]
    assert session["lines"][-1].startswith("ERR chip ")
