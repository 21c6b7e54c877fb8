"""The checks: pure functions from small facts to :class:`~companion.doctor.Check` lines.

Nothing here opens a device, a file or a socket: the facts come from :mod:`.probes` and
:mod:`.camera` (or from a test). Every code a check can give is in :data:`CODES`, so that a test
can hold both catalogues to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from companion.doctor import Check, settings

if TYPE_CHECKING:  # the camera's measures need numpy and OpenCV; the checks do not
    from companion.doctor.camera import CameraFacts

# Every code, by check id (the catalogues have words for each: tests/doctor/test_words.py).
CODES: dict[str, tuple[str, ...]] = {
    "camera.found": ("found_ok", "found_none", "found_fail", "software_missing"),
    "camera.resolution": ("resolution_ok", "resolution_warn", "resolution_fail"),
    "camera.frame_rate": ("frame_rate_ok", "frame_rate_warn", "frame_rate_fail"),
    "camera.board": ("board_ok", "board_warn", "board_fail"),
    "camera.space_pixels": ("space_pixels_ok", "space_pixels_warn", "space_pixels_fail"),
    "camera.sharpness": ("sharpness_ok", "sharpness_warn", "sharpness_fail"),
    "camera.glare": ("glare_ok", "glare_warn", "glare_fail"),
    "camera.steady": ("steady_ok", "steady_warn", "steady_fail"),
    "reader.found": ("found_ok", "found_none", "found_fail"),
    "reader.firmware": ("firmware_ok", "firmware_warn"),
    "reader.tap": ("tap_ok", "tap_fail"),
    "controls.found": ("found_ok", "found_none", "found_fail"),
    "storage.free": ("free_ok", "free_warn", "free_fail"),
    "storage.log": ("log_ok", "log_warn", "log_fail"),
    "storage.backup": ("backup_ok", "backup_old", "backup_none", "backup_broken"),
    "storage.access": ("access_none",),
    "network.addresses": ("addresses_ok", "addresses_fail"),
    "network.mode": (
        "mode_hotspot",
        "mode_hotspot_open",
        "mode_wifi",
        "mode_wired",
        "mode_none",
        "mode_unknown",
    ),
    "network.mdns": ("mdns_ok", "mdns_none"),
    "network.routing": (
        "routing_ok",
        "routing_not_installed",
        "routing_unknown",
        "routing_open",
        "routing_firewall_off",
        "routing_table_missing",
        "routing_forwarding_on",
        "routing_not_at_boot",
    ),
    "clock.sync": ("sync_ok", "sync_no", "sync_unknown"),
    "versions.software": ("software_ok",),
}


def all_codes() -> list[str]:
    """Every code the checks can give (``doctor.<area>.<what>``)."""
    return [f"doctor.{cid.split('.')[0]}.{name}" for cid, names in CODES.items() for name in names]


def make(cid: str, name: str, status: str, /, **params: Any) -> Check:
    """A check line with the code ``doctor.<area>.<name>`` (one of :data:`CODES`)."""
    if name not in CODES[cid]:
        raise ValueError(f"{name!r} is not a code of {cid}")
    return Check(cid, status, f"doctor.{cid.split('.')[0]}.{name}", params)


def grade(value: float, limits: Mapping[str, float]) -> str:
    """``ok``/``warn``/``fail`` of a value against ``warn_below``/``fail_below`` (low is bad)
    or ``warn_above``/``fail_above`` (high is bad)."""
    if "fail_below" in limits and value < float(limits["fail_below"]):
        return "fail"
    if "fail_above" in limits and value > float(limits["fail_above"]):
        return "fail"
    if "warn_below" in limits and value < float(limits["warn_below"]):
        return "warn"
    if "warn_above" in limits and value > float(limits["warn_above"]):
        return "warn"
    return "ok"


def graded(cid: str, measured: float, limits: Mapping[str, float], /, **params: Any) -> Check:
    """A graded line whose code is ``<what>_<status>``."""
    status = grade(measured, limits)
    what = cid.split(".", 1)[1]
    return make(cid, f"{what}_{status}", status, **params)


# --- camera -----------------------------------------------------------------------------------


# what the command's text adds to ``software_missing`` (the page says it in words: no command)
CAMERA_SOFTWARE_HOW = (
    "install it with `sudo apt install python3-picamera2`, in a virtual environment made with "
    "--system-site-packages; `sudo scripts/install.sh` does both"
)


def camera_checks(
    source: str | None,
    facts: CameraFacts | None,
    problem: str | None = None,
    limits: Mapping[str, Any] | None = None,
    *,
    software: bool = True,
) -> list[Check]:
    """The camera's lines. ``source``: its name (None: no camera asked for, or none
    configured); ``problem``: why it could not be opened or read (one sentence); ``facts``:
    what :func:`~companion.doctor.camera.measure` made of its frames; ``software``: False when
    the camera's own software is missing (the Pi camera without picamera2): then the advice is
    to install it, not to look at the cable."""
    lim = limits if limits is not None else settings()["camera"]
    if source is None:
        return [make("camera.found", "found_none", "warn")]
    if not software:
        return [
            make(
                "camera.found",
                "software_missing",
                "fail",
                source=source,
                detail=CAMERA_SOFTWARE_HOW,
            )
        ]
    if problem is not None or facts is None or facts.looked == 0:
        detail = problem or "the camera gave no picture"
        return [make("camera.found", "found_fail", "fail", source=source, detail=detail)]
    out = [
        make("camera.found", "found_ok", "ok", source=source),
        graded(
            "camera.resolution",
            min(facts.width, facts.height),
            lim["resolution"],
            width=facts.width,
            height=facts.height,
        ),
        graded("camera.frame_rate", facts.fps, lim["fps"], fps=round(facts.fps, 1)),
    ]
    if facts.located == 0 or facts.quality is None:
        out.append(make("camera.board", "board_fail", "fail", located=0, looked=facts.looked))
        return out
    board = grade(facts.quality, lim["quality"])
    if board == "ok" and facts.located < facts.looked:
        board = "warn"  # found, but not in every frame: something covers it at times
    out.append(
        make(
            "camera.board",
            f"board_{board}",
            board,
            percent=round(100 * facts.quality),
            located=facts.located,
            looked=facts.looked,
        )
    )
    if facts.space_px is not None:
        out.append(
            graded("camera.space_pixels", facts.space_px, lim["space_px"], px=round(facts.space_px))
        )
    if facts.sharpness is not None:
        out.append(
            graded(
                "camera.sharpness",
                facts.sharpness,
                lim["sharpness"],
                value=round(facts.sharpness),
                warn=round(float(lim["sharpness"].get("warn_below", 0.0))),  # good from here
            )
        )
    if facts.clipped is not None:
        out.append(
            graded(
                "camera.glare", facts.clipped, lim["clipped"], percent=round(100 * facts.clipped, 1)
            )
        )
    if facts.moved is not None and facts.located >= 2:
        out.append(
            graded(
                "camera.steady",
                facts.moved,
                lim["moved"],
                spaces=round(facts.moved, 2),
                seconds=round(facts.span),
            )
        )
    return out


# --- card reader -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReaderFacts:
    """What opening the card reader showed. ``port`` None: no reader asked for."""

    port: str | None
    opened: bool = False
    problem: str | None = None  # why it could not be opened
    firmware: str | None = None  # from its HELLO (None: no HELLO in time)
    chip: str | None = None
    tap_seconds: float | None = None  # the test tap's round trip (None: not tried)
    tap_waited: float | None = None  # the test tap was tried and nothing came in this time


def reader_checks(facts: ReaderFacts) -> list[Check]:
    if facts.port is None:
        return [make("reader.found", "found_none", "warn")]
    if not facts.opened:
        detail = facts.problem or "the reader cannot be opened"
        return [make("reader.found", "found_fail", "fail", port=facts.port, detail=detail)]
    out = [make("reader.found", "found_ok", "ok", port=facts.port)]
    if facts.firmware is None:
        out.append(make("reader.firmware", "firmware_warn", "warn"))
    else:
        out.append(
            make(
                "reader.firmware",
                "firmware_ok",
                "ok",
                version=facts.firmware,
                chip=facts.chip or "",
            )
        )
    if facts.tap_seconds is not None:
        out.append(make("reader.tap", "tap_ok", "ok", seconds=round(facts.tap_seconds, 2)))
    elif facts.tap_waited is not None:
        out.append(make("reader.tap", "tap_fail", "fail", seconds=round(facts.tap_waited)))
    return out


# --- buttons, LED and buzzer ------------------------------------------------------------------


def controls_check(enabled: bool, started: bool, problem: str | None = None) -> Check:
    """``enabled``: the configuration asks for the controls; ``started``: their pins opened."""
    if not enabled:
        return make("controls.found", "found_none", "warn")
    if not started:
        detail = problem or "the pins cannot be opened"
        return make("controls.found", "found_fail", "fail", detail=detail)
    return make("controls.found", "found_ok", "ok")


# --- storage ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StorageFacts:
    """The state directory's file system and files. ``backup``: the parsed ``last-backup.json``
    (None: there is none; ``{}``: it cannot be read)."""

    path: str
    free_bytes: int
    log_bytes: int
    backup: Mapping[str, Any] | None
    now: float
    readable: bool = True  # False: this user cannot look into the state directory


MB = 1024 * 1024


def storage_checks(facts: StorageFacts, limits: Mapping[str, Any] | None = None) -> list[Check]:
    lim = limits if limits is not None else settings()["storage"]
    free = facts.free_bytes / MB
    size = facts.log_bytes / MB
    out = [graded("storage.free", free, lim["free_mb"], mb=round(free), path=facts.path)]
    if not facts.readable:  # its log and backup record cannot be judged from here
        out.append(make("storage.access", "access_none", "warn", path=facts.path))
        return out
    out.append(graded("storage.log", size, lim["log_mb"], mb=round(size, 1)))
    backup = facts.backup
    if backup is None:
        out.append(make("storage.backup", "backup_none", "warn"))
        return out
    when = backup.get("time")
    if not isinstance(when, int | float) or isinstance(when, bool):
        out.append(make("storage.backup", "backup_broken", "warn"))
        return out
    days = max(0.0, (facts.now - float(when)) / 86400)
    events = backup.get("events")
    params: dict[str, Any] = {"days": round(days, 1)}
    if isinstance(events, int) and not isinstance(events, bool):
        params["events"] = events
    if grade(days, lim["backup_days"]) != "ok":
        out.append(make("storage.backup", "backup_old", "warn", **params))
    else:
        out.append(make("storage.backup", "backup_ok", "ok", **params))
    return out


# --- network ----------------------------------------------------------------------------------


class NetworkFacts(Protocol):
    """What the network check reads: the attributes of ``companion.network.NetworkStatus``
    (mode: hotspot | wifi | wired | none, or unknown from the stdlib's fallback)."""

    @property
    def mode(self) -> str: ...

    @property
    def ssid(self) -> str | None: ...

    @property
    def security(self) -> str | None: ...

    @property
    def addresses(self) -> tuple[str, ...]: ...

    @property
    def mdns(self) -> str | None: ...

    @property
    def interface(self) -> str | None: ...


def _reachable(addr: str) -> bool:
    return not (addr.startswith("127.") or addr == "::1" or addr.lower().startswith("fe80:"))


def network_checks(status: NetworkFacts) -> list[Check]:
    addresses = [a for a in status.addresses if _reachable(a)]
    out = []
    if addresses:
        out.append(
            make(
                "network.addresses",
                "addresses_ok",
                "ok",
                addresses=", ".join(addresses),
                interface=status.interface or "",
            )
        )
    else:
        out.append(make("network.addresses", "addresses_fail", "fail"))
    ssid = status.ssid or ""
    if status.mode == "hotspot":
        if status.security in (None, "open"):
            out.append(make("network.mode", "mode_hotspot_open", "warn", ssid=ssid))
        else:
            out.append(make("network.mode", "mode_hotspot", "ok", ssid=ssid))
    elif status.mode == "wifi":
        out.append(make("network.mode", "mode_wifi", "ok", ssid=ssid))
    elif status.mode == "wired":
        out.append(make("network.mode", "mode_wired", "ok"))
    elif status.mode == "none":
        out.append(make("network.mode", "mode_none", "fail"))
    else:
        out.append(make("network.mode", "mode_unknown", "warn"))
    if status.mdns:
        out.append(make("network.mdns", "mdns_ok", "ok", name=status.mdns))
    else:
        out.append(make("network.mdns", "mdns_none", "warn"))
    return out


# --- the box routes nothing ----------------------------------------------------------------


@dataclass(frozen=True)
class RoutingFacts:
    """Whether the box could pass traffic on between networks (hardware/README.md, "The box's
    own network"). ``installed``: the firewall's unit (``companion-firewall.service``) is on this
    machine; ``active``/``enabled``: systemd's ActiveState and UnitFileState of it (None: systemd
    cannot be asked); ``forwarding``: IPv4 forwarding on (None: cannot be read); ``table``: the
    nftables table ``inet companion`` is loaded (None: not looked at: only root can)."""

    installed: bool
    active: str | None = None
    enabled: str | None = None
    forwarding: bool | None = None
    table: bool | None = None


FIREWALL_UNIT = "companion-firewall.service"
# what the command's text adds to the warnings (the page says it in words: no command)
ROUTING_HOW = (
    f"`sudo systemctl status {FIREWALL_UNIT}` tells why; `sudo scripts/install.sh` puts the "
    "firewall and the script that turns forwarding off in place again and loads the firewall"
)
FORWARDING_OFF = "`sudo sysctl -w net.ipv4.ip_forward=0` turns forwarding off now"


def routing_check(facts: RoutingFacts) -> Check:
    """One line: the box's firewall runs (and starts with the box), its table is loaded where
    that can be seen, and IPv4 forwarding is off. A machine without the firewall's unit (a
    development machine, an install that leaves the network alone) is told so, not judged."""
    cid = "network.routing"
    if not facts.installed:
        return make(cid, "routing_not_installed", "ok")
    if facts.active is None or facts.forwarding is None:
        return make(cid, "routing_unknown", "warn", detail=ROUTING_HOW)
    if facts.active not in ("active", "reloading"):
        name = "routing_open" if facts.forwarding else "routing_firewall_off"
        return make(cid, name, "warn", detail=f"{FIREWALL_UNIT} is {facts.active}; {ROUTING_HOW}")
    if facts.table is False:
        return make(cid, "routing_table_missing", "warn", detail=ROUTING_HOW)
    if facts.forwarding:
        detail = f"{FORWARDING_OFF}; {ROUTING_HOW}"
        return make(cid, "routing_forwarding_on", "warn", detail=detail)
    if facts.enabled is not None and facts.enabled != "enabled":
        detail = f"{FIREWALL_UNIT} is {facts.enabled}; {ROUTING_HOW}"
        return make(cid, "routing_not_at_boot", "warn", detail=detail)
    return make(cid, "routing_ok", "ok")


# --- clock and versions -----------------------------------------------------------------------


def clock_check(synchronized: bool | None) -> Check:
    """``synchronized``: the system clock is set from the network (None: cannot tell)."""
    if synchronized is None:
        return make("clock.sync", "sync_unknown", "warn")
    if synchronized:
        return make("clock.sync", "sync_ok", "ok")
    return make("clock.sync", "sync_no", "warn")


def versions_check(versions: Mapping[str, str]) -> Check:
    """The software's versions (companion, python, numpy, opencv, os)."""
    keys = ("companion", "python", "numpy", "opencv", "os")
    return make("versions.software", "software_ok", "ok", **{k: versions.get(k, "?") for k in keys})
