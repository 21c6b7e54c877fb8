"""The wheel carries the dashboard: a normal (non-editable) install, as scripts/install.sh does,
serves the pages. Builds the wheel (pip fetches the build backend from PyPI), installs it without
dependencies into a throw-away venv and asks that copy where its web files are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.webapp import WEB_SHARE, web_dir, web_dirs

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "web"


def _web_files() -> list[str]:
    """Every file the dashboard serves: templates and static files (not the build script)."""
    return sorted(
        str(p.relative_to(WEB))
        for sub in ("templates", "static")
        for p in (WEB / sub).rglob("*")
        if p.is_file()
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", str(REPO), "-w", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, f"pip wheel failed: {r.stdout}\n{r.stderr}"
    wheels = list(out.glob("companion-*.whl"))
    assert len(wheels) == 1, wheels
    yield wheels[0]


def test_the_wheel_holds_every_dashboard_file(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    prefix = next(n.split("/share/")[0] for n in names if "/share/companion/web/" in n)
    assert prefix.endswith(".data/data")
    mark = "/share/companion/web/"
    shipped = {n.split(mark, 1)[1] for n in names if mark in n}
    expected = set(_web_files())
    assert {"templates/base.html", "static/js/main.js", "static/i18n/ja.json"} <= expected
    assert shipped == expected, f"missing {expected - shipped}, extra {shipped - expected}"
    assert "companion/data/europe.json" in names  # the package data too


def test_web_dir_resolves_inside_a_non_editable_install(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(py)]
    r = subprocess.run(
        [*pip, "install", "--no-deps", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, f"pip install failed: {r.stdout}\n{r.stderr}"
    # The installed copy, with this interpreter's dependencies (flask...) behind it on the path;
    # the editable checkout's .pth finder is not loaded this way, so `companion` is the wheel's.
    deps = sysconfig.get_path("purelib")
    probe = f"""
import json, sys
sys.path.append({deps!r})
import companion
from companion.webapp import create_app, web_dir
from companion.service import Service
from companion.store import EventStore
web = web_dir()
app = create_app(Service(EventStore({str(tmp_path / "state")!r})), {{"HOST_TOKEN": "t" * 20}})
c = app.test_client()
page = c.get("/", headers={{"Host": "127.0.0.1"}})
js = c.get("/static/js/main.js", headers={{"Host": "127.0.0.1"}})
print(json.dumps({{"package": companion.__file__, "web": str(web), "page": page.status_code,
                  "js": js.status_code, "body": page.get_data(as_text=True)[:2000]}}))
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run(
        [str(py), "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert Path(got["package"]).resolve().is_relative_to(venv.resolve())
    assert Path(got["web"]) == venv / WEB_SHARE
    assert got["page"] == 200 and got["js"] == 200
    assert "main.js" in got["body"]


def test_web_dir_in_a_checkout_is_the_source_tree() -> None:
    assert web_dir() == WEB
    assert web_dirs()[0] == WEB
    assert any(d.parts[-3:] == WEB_SHARE.parts for d in web_dirs()[1:])
