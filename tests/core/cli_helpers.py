"""Running the CLI in-process and writing state files: shared by the tests of
`companion score`, `doctor` and `transeuropa`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def scored(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, state: object, name: str = "state.json"
) -> dict[str, Any]:
    """`companion score STATE --json` on ``state`` (written as ``name``): it exits 0; its
    answer."""
    code, out, err = run(capsys, "score", write(tmp_path, state, name), "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def assert_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: object, message: str
) -> None:
    """`companion score STATE --json` on bad input: exit 2, nothing on stdout, one line on
    stderr naming ``message``, no traceback."""
    code, out, err = run(capsys, "score", write(tmp_path, content), "--json")
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1
