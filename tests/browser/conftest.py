"""Browser tests: Playwright driving Debian's chromium (/usr/bin/chromium, never a download).

They SKIP when chromium or Playwright is missing on a developer machine, and FAIL when the
environment variable CI is set (CI must run them). The server is the real app (service, event
log in a temporary directory, Flask app) served by waitress in a thread on a free port.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serving import InThread

CHROMIUM = Path(os.environ.get("COMPANION_CHROMIUM", "/usr/bin/chromium"))
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOST_TOKEN = "test-host-token-" + "x" * 27
PHONE = {"width": 390, "height": 844}


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so the browser tests must run)")
    pytest.skip(reason)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).parent == here and "needs_browser" in item.fixturenames:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def pw_browser() -> Iterator[Any]:
    if not CHROMIUM.exists() and not shutil.which(str(CHROMIUM)):
        _missing(f"chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright Python package is not installed (pip install -e '.[dev]')")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield browser
        browser.close()


class Server:
    def __init__(self, state_dir: Path, photo_reader: Callable[[bytes], Any] | None = None) -> None:
        from waitress.server import create_server

        from companion.service import Service
        from companion.store import EventStore
        from companion.webapp import create_app

        self.store = EventStore(state_dir)
        self.service = Service(self.store, photo_reader=photo_reader).start()
        # (every page of a browser test comes from 127.0.0.1, where at a table each phone has
        # its own address: streams per address are not capped below what a test opens)
        config = {"SSE_KEEPALIVE": 1.0, "SSE_LIFETIME": 60.0, "SSE_PER_ADDRESS": 16}
        self.app = create_app(self.service, {"HOST_TOKEN": HOST_TOKEN, **config})
        self.server: Any = create_server(self.app, host="127.0.0.1", port=0, threads=12)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.app.config["PUBLIC_URL"] = self.url
        self.serving = InThread(self.server)

    def close(self) -> None:
        self.serving.close(self.service.stop)
        self.store.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "state")
    yield s
    s.close()


def tiny_png(width: int = 8, height: int = 8) -> bytes:
    """A real (grey) PNG for uploads: the server checks an upload's header before the reader."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def fake_photo_reader(data: bytes) -> dict[str, Any]:
    """Stands in for the vision reader: a fixed reading, one route marked unsure."""
    if not data:
        raise ValueError("empty photo")
    return {
        "routes": {"frankfurt-paris-1": "blue", "berlin-wien": "red", "munchen-wien": None},
        "stations": {"roma": "red"},
        "confidence": {"frankfurt-paris-1": 0.97, "berlin-wien": 0.31},
        "check": ["berlin-wien", "roma"],
        "problems": [],
    }


@pytest.fixture
def photo_server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "state", photo_reader=fake_photo_reader)
    yield s
    s.close()


@pytest.fixture
def needs_browser(pw_browser: Any) -> Any:
    return pw_browser


@pytest.fixture
def phone(needs_browser: Any) -> Iterator[Callable[..., Any]]:
    """phone(locale="en-US") -> a new page in its own browser context (own cookies)."""
    contexts: list[Any] = []

    def make(locale: str = "en-US") -> Any:
        ctx = needs_browser.new_context(
            viewport=PHONE, locale=locale, is_mobile=True, has_touch=True, device_scale_factor=2
        )
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e) + (e.stack or "")))
        page.js_errors = errors
        return page

    yield make
    for ctx in contexts:
        ctx.close()
