from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.core.board import GameMap
from companion.data import europe_map
from companion.service import Service
from tests.serving import running_service

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(autouse=True, scope="session")
def no_installed_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Hermetic: where scripts/install.sh ran, /etc/companion/companion.toml would configure
    every `companion serve` the tests start (its camera, its card reader). They read this file
    instead, which names no device; a test naming its own (--config, env=) is unaffected."""
    path = tmp_path_factory.mktemp("config") / "companion.toml"
    path.write_text('[camera]\nbackend = "none"\n\n[reader]\nenabled = false\n', encoding="utf-8")
    old = os.environ.get("COMPANION_CONFIG")
    os.environ["COMPANION_CONFIG"] = str(path)
    yield
    if old is None:
        os.environ.pop("COMPANION_CONFIG", None)
    else:
        os.environ["COMPANION_CONFIG"] = old


@pytest.fixture(autouse=True)
def collect_after_each_test() -> Iterator[None]:
    """On Python 3.13+ an SQLite connection left for the garbage collector is a
    ResourceWarning (an error here) raised whenever the collector happens to run: in a random
    later test. Collecting after every test makes it fail in the test that left it, every run
    (a few seconds in all; only where the warning exists)."""
    yield
    if sys.version_info >= (3, 13):
        gc.collect()


@pytest.fixture(scope="session")
def emap() -> GameMap:
    return europe_map()


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    """A running service on a fresh event log in ``tmp_path``; stopped and closed after."""
    with running_service(tmp_path) as svc:
        yield svc
