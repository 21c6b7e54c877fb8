"""Running the CLI in-process and writing state files: shared by the `companion score` tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, data: object, name: str = "state.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return str(path)
