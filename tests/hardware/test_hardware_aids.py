"""hardware/: the generated diagrams and printables are up to date and agree with the code."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from companion.config import DEFAULT_PINS
from tests.hardware_scripts import HARDWARE, load

REPO = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def diagrams() -> ModuleType:
    return load("make_diagrams")


@pytest.fixture(scope="module")
def printables() -> ModuleType:
    return load("make_printables")


def test_committed_svgs_are_what_the_scripts_write(
    tmp_path: Path, diagrams: ModuleType, printables: ModuleType
) -> None:
    written = diagrams.write_all(tmp_path) + printables.write_all(tmp_path)
    assert {p.name for p in written} == {
        "wiring-pi.svg",
        "wiring-pico.svg",
        "sticker-guide.svg",
        "reader-target.svg",
        "corner-markers.svg",
        "table-card-example.svg",
    }
    for path in written:
        ET.fromstring(path.read_text(encoding="utf-8"))  # well-formed XML
        committed = HARDWARE / path.name
        script = "make_diagrams" if "wiring" in path.name else "make_printables"
        assert committed.read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), (
            f"{path.name} is stale: run .venv/bin/python hardware/{script}.py"
        )


def test_every_configured_pin_is_wired_to_its_header_pin(diagrams: ModuleType) -> None:
    wires = diagrams.pi_wires()
    signals = {w.signal for w in wires}
    for name, bcm in DEFAULT_PINS.items():
        assert f"GPIO{bcm}" in signals, name
    for w in wires:
        if w.pin:
            assert diagrams.PI_HEADER[w.pin] == w.signal  # a wire lands on what its label says
    # Pi header facts that a typo would break.
    assert diagrams.pi_physical(17) == 11
    assert diagrams.pi_physical(16) == 36
    assert sorted(n for n, f in diagrams.PI_HEADER.items() if f == "GND") == [
        6, 9, 14, 20, 25, 30, 34, 39,
    ]  # fmt: skip


def test_pico_wiring_follows_the_firmware_constants(diagrams: ModuleType) -> None:
    constants = diagrams.pico_constants(REPO / "firmware" / "main.py")
    assert {"PIN_SCK", "PIN_MOSI", "PIN_MISO", "PIN_CS", "PIN_RST"} <= set(constants)
    wires = diagrams.pico_wires()
    by_terminal = {(w.part, w.terminal): w for w in wires}
    assert by_terminal[("RC522", "SCK")].signal == f"GP{constants['PIN_SCK']}"
    assert by_terminal[("RC522", "MISO")].signal == f"GP{constants['PIN_MISO']}"
    assert by_terminal[("RC522", "3.3V")].signal == "3V3(OUT)"
    for w in wires:
        if w.pin:
            assert diagrams.PICO_PINS[w.pin] == w.signal


def test_the_readme_tables_match_the_wiring(diagrams: ModuleType) -> None:
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert diagrams.markdown_table(diagrams.pi_wires(), "Pi header") in readme
    assert diagrams.markdown_table(diagrams.pico_wires(), "Pico") in readme


def test_printables_are_true_size(printables: ModuleType) -> None:
    root = ET.fromstring(printables.sticker_guide((56.0, 87.0), 25.0))
    assert root.get("width") == "210.0mm" and root.get("viewBox") == "0 0 210.0 297.0"
    cards = [r for r in root.iter(f"{SVG}rect") if r.get("width") == "56.0"]
    assert len(cards) == 6
    for card in cards:  # every card fits on the A4 sheet
        assert float(card.get("x", "0")) >= 0 and float(card.get("x", "0")) + 56 <= 210
        assert float(card.get("y", "0")) + 87 <= 297
    circles = [c for c in root.iter(f"{SVG}circle")]
    assert {c.get("r") for c in circles} == {"12.5"}
    bar = [r for r in root.iter(f"{SVG}rect") if r.get("width") == "50"]
    assert bar, "the 50 mm check bar"


def test_aruco_markers_decode_back_to_their_ids(printables: ModuleType) -> None:
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary)
    for marker_id in range(4):
        bits = np.array(printables.aruco_bits(marker_id), dtype=np.uint8)
        image = np.kron(1 - bits, np.ones((20, 20), dtype=np.uint8)) * 255
        image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
        _, ids, _ = detector.detectMarkers(image)
        assert ids is not None and ids.flatten().tolist() == [marker_id]


def test_camera_arithmetic(monkeypatch: pytest.MonkeyPatch) -> None:
    geo = load("camera_geometry")
    wide = geo.LENSES[1]
    h = geo.height_for(wide, 50.0)
    assert h == pytest.approx(315 / 0.66189, rel=1e-3)  # 315 mm / tan(33.5 deg)
    fw, fh = geo.footprint(wide, h)
    assert fw >= 900 and fh == pytest.approx(630)
    length, width = geo.space_size_mm()
    assert 20 < length < 35 and 8 < width < 15
    half_diagonal = (800**2 + 530**2) ** 0.5 / 2
    assert geo.glare_radius(480.0, 1500.0) == pytest.approx(half_diagonal * 1980 / 480)
    report = geo.report(50.0, 1500.0)
    assert "| Camera Module 3 Wide | 48 cm |" in report


def test_card_size_argument_is_checked(printables: ModuleType) -> None:
    import argparse

    assert printables.parse_size("44x68") == (44.0, 68.0)
    for bad in ("44", "axb", "5x5"):
        with pytest.raises(argparse.ArgumentTypeError):
            printables.parse_size(bad)
