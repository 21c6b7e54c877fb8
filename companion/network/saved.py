"""What the box keeps of its network in the state directory: the password the host set for the
box's own network (``network-password``, mode 0600) and the last Wi-Fi scan (``network-scan.json``:
a radio that serves the box's network cannot scan, so the host's list of venue networks is the
one seen before it opened). Written atomically; when root writes them (the boot-time unit), they
are given to the state directory's owner, so that the service (the ``companion`` user) reads them.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from companion.durable import write_atomic

from .model import WifiNetwork, password_problem

log = logging.getLogger(__name__)

PASSWORD_FILE = "network-password"
SCAN_FILE = "network-scan.json"
MAX_SAVED = 64  # networks kept of a scan


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, mode 0600, owned like its directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text.encode("utf-8"), mode=0o600, owner_of=path.parent)


def read_password(state_dir: Path) -> str | None:
    """The password of the box's network, or None (open: none was set, or the file is bad)."""
    path = state_dir / PASSWORD_FILE
    try:
        text = path.read_text(encoding="utf-8").rstrip("\n")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeError) as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None
    if password_problem(text) is not None:
        log.warning("%s does not hold a usable password; the box's network stays open", path)
        return None
    return text


def save_password(state_dir: Path, password: str | None) -> None:
    """Keep (or, with None, forget) the password of the box's network."""
    path = state_dir / PASSWORD_FILE
    if password is None:
        path.unlink(missing_ok=True)
        return
    problem = password_problem(password)
    if problem is not None:
        raise ValueError(problem)
    write_private(path, password + "\n")


def save_scan(state_dir: Path, networks: list[WifiNetwork], now: float | None = None) -> None:
    data = {
        "time": int(time.time() if now is None else now),
        "networks": [n.to_json() for n in networks[:MAX_SAVED]],
    }
    write_private(state_dir / SCAN_FILE, json.dumps(data, ensure_ascii=False) + "\n")


def read_scan(state_dir: Path) -> tuple[list[WifiNetwork], int | None]:
    """The last scan kept and when it was made (unix seconds), or ([], None)."""
    path = state_dir / SCAN_FILE
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        out = [
            WifiNetwork(str(n["ssid"]), int(n["signal"]), str(n["security"]), bool(n["in_use"]))
            for n in data["networks"]
        ]
        return out, int(data["time"])
    except FileNotFoundError:
        return [], None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("cannot read %s: %s", path, exc)
        return [], None


__all__ = ["read_password", "read_scan", "save_password", "save_scan", "write_private"]
