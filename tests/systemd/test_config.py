"""companion.config: the TOML file, its defaults, env overrides and plain error sentences."""

from __future__ import annotations

from pathlib import Path

import pytest

import companion.config as config_module
from companion.config import (
    DEFAULT_PINS,
    CameraConfig,
    Config,
    ConfigError,
    camera_backend_problem,
    load_config,
    parse_config,
)

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "systemd" / "companion.toml.example"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "companion.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_example_file_loads_and_equals_the_defaults(tmp_path: Path) -> None:
    env = {"STATE_DIRECTORY": "/var/lib/companion"}
    example = load_config(EXAMPLE, env=env)
    defaults = parse_config({}, env=env)
    assert example.path == EXAMPLE
    assert (example.server, example.camera, example.reader) == (
        defaults.server,
        defaults.camera,
        defaults.reader,
    )
    assert example.controls == defaults.controls
    assert dict(example.controls.pins) == DEFAULT_PINS


def test_defaults_without_any_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # hermetic: where scripts/install.sh ran, /etc/companion/companion.toml exists
    monkeypatch.setattr(config_module, "DEFAULT_CONFIG_PATH", tmp_path / "etc" / "companion.toml")
    config = load_config(env={"XDG_STATE_HOME": str(tmp_path)})
    assert isinstance(config, Config)
    assert config.server.port == 8080
    assert config.server.host == "0.0.0.0"
    assert config.server.state_dir == tmp_path / "companion"
    assert config.camera.backend == "picamera2"
    assert config.camera.resolution == (1920, 1080)
    assert config.reader.port == "/dev/ttr-reader"
    assert config.reader.enabled is True
    assert config.controls.enabled is False


def test_companion_config_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[server]\nport = 9000\n[camera]\nbackend = "v4l2"\n')
    config = load_config(env={"COMPANION_CONFIG": str(path), "XDG_STATE_HOME": str(tmp_path)})
    assert config.path == path
    assert config.server.port == 9000
    assert config.camera.backend == "v4l2"
    assert config.camera.device == "/dev/video0"
    assert config.camera.source == "v4l2:/dev/video0"


def test_an_explicit_path_beats_companion_config(tmp_path: Path) -> None:
    path = write(tmp_path, "[server]\nport = 9001\n")
    config = load_config(path, env={"COMPANION_CONFIG": str(tmp_path / "other.toml")})
    assert config.server.port == 9001


def test_state_dir_precedence(tmp_path: Path) -> None:
    path = write(tmp_path, '[server]\nstate_dir = "/srv/ttr"\n')
    base = {"STATE_DIRECTORY": "/var/lib/companion", "XDG_STATE_HOME": "/x"}
    assert load_config(path, env=base).server.state_dir == Path("/srv/ttr")
    assert load_config(path, env={**base, "COMPANION_STATE_DIR": "/tmp/s"}).server.state_dir == (
        Path("/tmp/s")
    )
    assert parse_config({}, env=base).server.state_dir == Path("/var/lib/companion")
    assert parse_config({}, env={"XDG_STATE_HOME": "/x"}).server.state_dir == Path("/x/companion")


def test_pins_merge_with_the_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, "[controls]\nenabled = true\npins = { end_turn = 4, buzzer = 21 }\n")
    controls = load_config(path, env={}).controls
    assert controls.enabled
    assert controls.pins["end_turn"] == 4
    assert controls.pins["buzzer"] == 21
    assert controls.pins["confirm"] == DEFAULT_PINS["confirm"]


@pytest.mark.parametrize(
    ("source", "backend", "device", "expected"),
    [
        ("", "picamera2", "", "picamera2"),
        ("", "picamera2", "1", "picamera2:1"),
        ("", "sim", "7", "sim:7"),
        ("", "file", "/tmp/game.mp4", "file:/tmp/game.mp4"),
        ("", "none", "", ""),
    ],
)
def test_camera_source_strings(source: str, backend: str, device: str, expected: str) -> None:
    assert CameraConfig(backend=backend, device=device).source == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[server\nport = 1", "is not valid TOML"),
        ("[server]\nport = 70000", "[server] port must be between 1 and 65535, got 70000"),
        ('[server]\nport = "8080"', "[server] port must be a whole number, got '8080'"),
        ("[server]\nport = true", "[server] port must be a whole number, got True"),
        ('[server]\nhost = ""', "[server] host must not be empty"),
        ('[server]\nstate_dir = ""', "[server] state_dir must not be empty"),
        ("[server]\nprot = 8080", "[server] has an unknown key 'prot'"),
        ("[sever]\nport = 8080", "unknown section [sever]"),
        ("server = 3", "[server] must be a table"),
        ('[camera]\nbackend = "webcam"', "backend must be one of picamera2, v4l2, file, sim"),
        ('[camera]\nbackend = "file"', "[camera] device must name a video or image file"),
        ('[camera]\ndevice = "/dev/video0"', "must be a camera number"),
        ('[camera]\nresolution = "big"', 'must look like "1920x1080"'),
        ("[camera]\nresolution = [1920]", "must be two whole numbers"),
        ("[camera]\nresolution = [1920.0, 1080]", "must be two whole numbers"),
        ("[camera]\nresolution = [10, 10]", "must be between 160x120 and 9152x6944, got 10x10"),
        ("[camera]\nfps = 0", "[camera] fps must be between 0.1 and 60, got 0"),
        ('[camera]\nfps = "fast"', "[camera] fps must be a number"),
        ('[reader]\nenabled = "yes"', "[reader] enabled must be true or false, got 'yes'"),
        ('[reader]\nport = " "', "[reader] port must name a serial device"),
        ("[controls]\npins = 3", "[controls] pins must be a table"),
        ("[controls.pins]\nstart = 4", "unknown pin 'start'"),
        ("[controls.pins]\nconfirm = 40", "pins.confirm must be a BCM GPIO number from 0 to 27"),
        ("[controls.pins]\nconfirm = 17", "end_turn and confirm both use GPIO17"),
        ("[controls]\nhold_time = 0", "hold_time must be between 0.2 and 10"),
        ("[controls]\nbeep_long = 0.05", "beep_long (0.05 s) must be longer than beep_short"),
    ],
)
def test_bad_values_get_one_plain_sentence(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text + "\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, env={})
    text_of_error = str(info.value)
    assert message in text_of_error
    assert str(path) in text_of_error
    assert "\n" not in text_of_error


def test_a_missing_named_file_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match=r"nope.toml does not exist"):
        load_config(env={"COMPANION_CONFIG": str(missing)})


def test_a_directory_or_binary_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path, env={})
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="is not UTF-8 text"):
        load_config(binary, env={})


def test_camera_backend_problems_are_plain_sentences(tmp_path: Path) -> None:
    # cv2 is installed here, so v4l2/file are only missing their device or file.
    assert camera_backend_problem(CameraConfig(backend="sim")) is None
    problem = camera_backend_problem(CameraConfig(backend="v4l2", device="/dev/video99"))
    assert problem is not None and "/dev/video99 does not exist" in problem
    problem = camera_backend_problem(CameraConfig(backend="file", device=str(tmp_path / "x.mp4")))
    assert problem is not None and "x.mp4 does not exist" in problem
    video = tmp_path / "game.mp4"
    video.write_bytes(b"")
    assert camera_backend_problem(CameraConfig(backend="file", device=str(video))) is None


def test_the_installed_file_is_read_when_nothing_else_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = write(tmp_path, '[camera]\nbackend = "none"\n')
    monkeypatch.setattr(config_module, "DEFAULT_CONFIG_PATH", installed)
    config = load_config(env={})
    assert config.path == installed
    assert config.camera.backend == "none"
    assert config.camera.source == ""
    assert camera_backend_problem(config.camera) is None
    other = tmp_path / "other"
    other.mkdir()
    named = write(other, "")
    assert load_config(env={"COMPANION_CONFIG": str(named)}).path == named


def test_the_recording_section() -> None:
    from companion.config import parse_config

    cfg = parse_config({"recording": {"every": 10.0, "quality": 90, "cap_mb": 200}}, env={})
    assert (cfg.recording.every, cfg.recording.quality, cfg.recording.cap_mb) == (10.0, 90, 200)
    assert cfg.recording.enabled is True
    with pytest.raises(ConfigError, match=r"\[recording\] quality must be between 30 and 100"):
        parse_config({"recording": {"quality": 101}}, env={})
    with pytest.raises(ConfigError, match=r"\[recording\] has an unknown key 'size'"):
        parse_config({"recording": {"size": 3}}, env={})
