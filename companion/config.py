"""The companion's configuration file (TOML), its defaults and its environment overrides.

Where the file comes from, first match wins:

1. the ``path`` argument of :func:`load_config` (e.g. ``companion serve --config FILE``);
2. the environment variable ``COMPANION_CONFIG`` (a missing file named there is an error);
3. ``/etc/companion/companion.toml`` when it exists (what scripts/install.sh writes);
4. no file: every default.

``COMPANION_STATE_DIR`` overrides ``[server] state_dir``. Without either, the state directory
is systemd's ``$STATE_DIRECTORY`` (set by ``StateDirectory=``), else
``$XDG_STATE_HOME/companion`` (``~/.local/state/companion``).

Every bad value raises :class:`ConfigError` with one plain sentence that names the file, the
key and what is allowed. See ``systemd/companion.toml.example`` for an annotated file.
"""

from __future__ import annotations

import importlib.util
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_CONFIG_PATH = Path("/etc/companion/companion.toml")
CAMERA_BACKENDS: tuple[str, ...] = ("picamera2", "v4l2", "file", "sim", "none")
BUTTONS: tuple[str, ...] = ("end_turn", "confirm", "undo")

# BCM numbers. None of them is an I2C, SPI0 or UART pin, so those stay free for other hats.
DEFAULT_PINS: dict[str, int] = {
    "end_turn": 17,
    "confirm": 27,
    "undo": 22,
    "led_red": 5,
    "led_green": 6,
    "led_blue": 13,
    "buzzer": 16,
}


class ConfigError(ValueError):
    """A configuration file or value that cannot be used; the message is one plain sentence."""


@dataclass(frozen=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 8080
    state_dir: Path = field(default_factory=lambda: default_state_dir({}))


@dataclass(frozen=True)
class CameraConfig:
    backend: str = "picamera2"
    device: str = ""
    resolution: tuple[int, int] = (1920, 1080)
    fps: float = 5.0

    @property
    def source(self) -> str:
        """The camera as a vision source string: ``picamera2``, ``v4l2:/dev/video0``, ...

        picamera2's device is the camera number (empty = the first camera). ``none`` (no camera:
        what scripts/install.sh picks on a machine without one) is the empty string.
        """
        if self.backend == "none":
            return ""
        if self.backend == "picamera2":
            return "picamera2" if not self.device else f"picamera2:{self.device}"
        if self.backend == "sim":
            return "sim" if not self.device else f"sim:{self.device}"
        return f"{self.backend}:{self.device}"


@dataclass(frozen=True)
class ReaderConfig:
    enabled: bool = True
    port: str = "/dev/ttr-reader"


@dataclass(frozen=True)
class ControlsConfig:
    enabled: bool = False
    pins: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_PINS))
    hold_time: float = 1.5
    bounce_time: float = 0.03
    led_common_anode: bool = False
    buzzer_active_high: bool = True
    beep_short: float = 0.08
    beep_long: float = 0.6


@dataclass(frozen=True)
class RecordingConfig:
    """The black box (companion/blackbox/): frames of the board kept while a game runs."""

    enabled: bool = True
    every: float = 30.0  # seconds between two frames when nothing happens
    quality: int = 85  # JPEG quality
    cap_mb: int = 1024  # the state directory's recordings, at most (oldest finished first)


@dataclass(frozen=True)
class Config:
    server: ServerConfig = field(default_factory=ServerConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    controls: ControlsConfig = field(default_factory=ControlsConfig)
    recording: RecordingConfig = field(default_factory=RecordingConfig)
    path: Path | None = None  # the file it was read from, if any


def default_state_dir(env: Mapping[str, str]) -> Path:
    """systemd's StateDirectory when set, else the XDG state home."""
    systemd_dir = env.get("STATE_DIRECTORY", "")
    if systemd_dir:
        # systemd lists one path per StateDirectory= entry, separated by colons.
        return Path(systemd_dir.split(":")[0])
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg:
        return Path(xdg) / "companion"
    try:
        return Path.home() / ".local" / "state" / "companion"
    except RuntimeError:  # no HOME and no passwd entry
        return Path("/var/lib/companion")


def find_config_path(path: str | Path | None, env: Mapping[str, str]) -> Path | None:
    """Which file to read (see the module docstring), or None for defaults only."""
    if path is not None:
        return Path(path)
    named = env.get("COMPANION_CONFIG", "")
    if named:
        return Path(named)
    if DEFAULT_CONFIG_PATH.is_file():
        return DEFAULT_CONFIG_PATH
    return None


def load_config(path: str | Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read the configuration; raises ConfigError with a plain sentence on any bad value."""
    environ: Mapping[str, str] = os.environ if env is None else env
    chosen = find_config_path(path, environ)
    data: dict[str, Any] = {}
    if chosen is not None:
        data = _read_toml(chosen)
    return parse_config(data, env=environ, path=chosen)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"the configuration file {path} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"the configuration file {path} is a directory") from None
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration file {path}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"the configuration file {path} is not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the configuration file {path} is not valid TOML: {exc}") from None


class _Section:
    """Typed reads of one TOML table, with messages naming file, section and key."""

    def __init__(self, data: Mapping[str, Any], name: str, where: str, allowed: set[str]) -> None:
        raw = data.get(name, {})
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: [{name}] must be a table")
        unknown = sorted(set(raw) - allowed)
        if unknown:
            raise ConfigError(
                f"{where}: [{name}] has an unknown key {unknown[0]!r} "
                f"(known keys: {', '.join(sorted(allowed))})"
            )
        self.raw: dict[str, Any] = raw
        self.name = name
        self.where = where

    def key(self, key: str) -> str:
        return f"{self.where}: [{self.name}] {key}"

    def has(self, key: str) -> bool:
        return key in self.raw

    def string(self, key: str, default: str) -> str:
        value = self.raw.get(key, default)
        if not isinstance(value, str):
            raise ConfigError(f"{self.key(key)} must be a string, got {value!r}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.raw.get(key, default)
        if not isinstance(value, bool):
            raise ConfigError(f"{self.key(key)} must be true or false, got {value!r}")
        return value

    def integer(self, key: str, default: int, low: int, high: int) -> int:
        value = self.raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{self.key(key)} must be a whole number, got {value!r}")
        if not low <= value <= high:
            raise ConfigError(f"{self.key(key)} must be between {low} and {high}, got {value}")
        return value

    def number(self, key: str, default: float, low: float, high: float) -> float:
        value = self.raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{self.key(key)} must be a number, got {value!r}")
        if not low <= float(value) <= high:
            raise ConfigError(f"{self.key(key)} must be between {low:g} and {high:g}, got {value}")
        return float(value)


def parse_config(
    data: Mapping[str, Any], env: Mapping[str, str] | None = None, path: Path | None = None
) -> Config:
    """Build a Config from parsed TOML data plus the environment overrides."""
    environ: Mapping[str, str] = os.environ if env is None else env
    where = str(path) if path is not None else "configuration"
    unknown = sorted(set(data) - {"server", "camera", "reader", "controls", "recording"})
    if unknown:
        raise ConfigError(
            f"{where}: unknown section [{unknown[0]}] "
            "(known: server, camera, reader, controls, recording)"
        )
    return Config(
        server=_server(_Section(data, "server", where, {"host", "port", "state_dir"}), environ),
        camera=_camera(_Section(data, "camera", where, {"backend", "device", "resolution", "fps"})),
        reader=_reader(_Section(data, "reader", where, {"enabled", "port"})),
        controls=_controls(
            _Section(
                data,
                "controls",
                where,
                {
                    "enabled",
                    "pins",
                    "hold_time",
                    "bounce_time",
                    "led_common_anode",
                    "buzzer_active_high",
                    "beep_short",
                    "beep_long",
                },
            )
        ),
        recording=_recording(
            _Section(data, "recording", where, {"enabled", "every", "quality", "cap_mb"})
        ),
        path=path,
    )


def _recording(sec: _Section) -> RecordingConfig:
    d = RecordingConfig()
    return RecordingConfig(
        enabled=sec.boolean("enabled", d.enabled),
        every=sec.number("every", d.every, 1.0, 3600.0),
        quality=sec.integer("quality", d.quality, 30, 100),
        cap_mb=sec.integer("cap_mb", d.cap_mb, 10, 1_000_000),
    )


def _server(sec: _Section, env: Mapping[str, str]) -> ServerConfig:
    host = sec.string("host", ServerConfig.host).strip()
    if not host:
        raise ConfigError(f"{sec.key('host')} must not be empty (use 0.0.0.0 for every address)")
    port = sec.integer("port", ServerConfig.port, 1, 65535)
    override = env.get("COMPANION_STATE_DIR", "")
    if override:
        state_dir = Path(override)
    elif sec.has("state_dir"):
        text = sec.string("state_dir", "")
        if not text.strip():
            raise ConfigError(f"{sec.key('state_dir')} must not be empty")
        state_dir = Path(text).expanduser()
    else:
        state_dir = default_state_dir(env)
    return ServerConfig(host=host, port=port, state_dir=state_dir)


def _camera(sec: _Section) -> CameraConfig:
    backend = sec.string("backend", CameraConfig.backend)
    if backend not in CAMERA_BACKENDS:
        raise ConfigError(
            f"{sec.key('backend')} must be one of {', '.join(CAMERA_BACKENDS)}, got {backend!r}"
        )
    device = sec.string("device", "")
    if backend == "v4l2" and not device:
        device = "/dev/video0"
    if backend == "file" and not device:
        raise ConfigError(f"{sec.key('device')} must name a video or image file for backend 'file'")
    if backend == "picamera2" and device and not device.isdigit():
        raise ConfigError(
            f"{sec.key('device')} must be a camera number such as \"0\" for backend 'picamera2', "
            f"got {device!r}"
        )
    resolution = _resolution(sec)
    fps = sec.number("fps", CameraConfig.fps, 0.1, 60.0)
    return CameraConfig(backend=backend, device=device, resolution=resolution, fps=fps)


def _resolution(sec: _Section) -> tuple[int, int]:
    value = sec.raw.get("resolution", list(CameraConfig.resolution))
    pair: list[Any]
    if isinstance(value, str):
        parts = value.lower().replace(" ", "").split("x")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ConfigError(
                f'{sec.key("resolution")} must look like "1920x1080" or [1920, 1080], got {value!r}'
            )
        pair = [int(p) for p in parts]
    elif isinstance(value, list):
        pair = value
    else:
        raise ConfigError(
            f'{sec.key("resolution")} must look like "1920x1080" or [1920, 1080], got {value!r}'
        )
    if len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair):
        raise ConfigError(f"{sec.key('resolution')} must be two whole numbers, got {value!r}")
    width, height = pair
    if not (160 <= width <= 9152 and 120 <= height <= 6944):
        raise ConfigError(
            f"{sec.key('resolution')} must be between 160x120 and 9152x6944, got {width}x{height}"
        )
    return (width, height)


def _reader(sec: _Section) -> ReaderConfig:
    enabled = sec.boolean("enabled", ReaderConfig.enabled)
    port = sec.string("port", ReaderConfig.port).strip()
    if not port:
        raise ConfigError(f"{sec.key('port')} must name a serial device such as /dev/ttr-reader")
    return ReaderConfig(enabled=enabled, port=port)


def _controls(sec: _Section) -> ControlsConfig:
    defaults = ControlsConfig()
    enabled = sec.boolean("enabled", defaults.enabled)
    raw_pins = sec.raw.get("pins", {})
    if not isinstance(raw_pins, dict):
        raise ConfigError(f"{sec.key('pins')} must be a table such as {{ end_turn = 17 }}")
    pins = dict(DEFAULT_PINS)
    for name, value in raw_pins.items():
        if name not in DEFAULT_PINS:
            raise ConfigError(
                f"{sec.key('pins')} has an unknown pin {name!r} (known: {', '.join(DEFAULT_PINS)})"
            )
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 27:
            raise ConfigError(
                f"{sec.key('pins.' + name)} must be a BCM GPIO number from 0 to 27, got {value!r}"
            )
        pins[name] = value
    seen: dict[int, str] = {}
    for name, number in pins.items():
        if number in seen:
            raise ConfigError(f"{sec.key('pins')}: {seen[number]} and {name} both use GPIO{number}")
        seen[number] = name
    hold_time = sec.number("hold_time", defaults.hold_time, 0.2, 10.0)
    bounce_time = sec.number("bounce_time", defaults.bounce_time, 0.0, 0.5)
    beep_short = sec.number("beep_short", defaults.beep_short, 0.01, 2.0)
    beep_long = sec.number("beep_long", defaults.beep_long, 0.01, 5.0)
    if beep_long <= beep_short:
        raise ConfigError(
            f"{sec.key('beep_long')} ({beep_long:g} s) must be longer than "
            f"beep_short ({beep_short:g} s)"
        )
    return ControlsConfig(
        enabled=enabled,
        pins=pins,
        hold_time=hold_time,
        bounce_time=bounce_time,
        led_common_anode=sec.boolean("led_common_anode", defaults.led_common_anode),
        buzzer_active_high=sec.boolean("buzzer_active_high", defaults.buzzer_active_high),
        beep_short=beep_short,
        beep_long=beep_long,
    )


# (the Raspberry Pi camera's own software is the set-up check's to judge and to word, one code
# for the command and the page: companion.commands.doctor.configured_camera_problem)
_CAMERA_MODULES = {"v4l2": "cv2", "file": "cv2"}
_CAMERA_HINTS = {
    "v4l2": (
        "the camera backend 'v4l2' needs OpenCV (cv2), which is not installed: "
        "run `pip install opencv-python-headless` in the companion's venv"
    ),
    "file": (
        "the camera backend 'file' needs OpenCV (cv2), which is not installed: "
        "run `pip install opencv-python-headless` in the companion's venv"
    ),
}


def camera_backend_problem(camera: CameraConfig) -> str | None:
    """A plain sentence saying why the chosen camera backend cannot work here, or None.

    Checks only what can be checked without opening the camera: for v4l2/file, OpenCV and
    that the device or file exists.
    """
    module = _CAMERA_MODULES.get(camera.backend)
    if module is not None and importlib.util.find_spec(module) is None:
        return _CAMERA_HINTS[camera.backend]
    if (
        camera.backend == "v4l2"
        and camera.device.startswith("/dev/")
        and not Path(camera.device).exists()
    ):
        return (
            f"the camera device {camera.device} does not exist: is the USB camera plugged "
            "in? (`v4l2-ctl --list-devices` lists the cameras)"
        )
    if camera.backend == "file" and not Path(camera.device).exists():
        return f"the camera file {camera.device} does not exist"
    return None
