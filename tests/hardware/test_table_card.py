"""The table card's two QR codes decode (OpenCV's QR detector) to exactly the Wi-Fi payload of the
box's network and the page's address. The card's SVG is drawn onto an image from its own
rectangles (tests/browser/test_network_page.py also decodes a browser's rendering of it)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.network import wifi_qr_payload
from tests.hardware_scripts import load, make_table_card
from tests.network.test_network_cli import typing as typing_at

REPO = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"
PX_PER_MM = 12


def raster(svg: str, group_id: str) -> np.ndarray:
    """The group's rectangles drawn black on white (its first rectangle: the white quiet zone)."""
    root = ET.fromstring(svg)
    group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == group_id)
    rects = [{k: float(r.get(k, 0)) for k in ("x", "y", "width", "height")} for r in group]
    zone = rects[0]
    size = round(zone["width"] * PX_PER_MM)
    img = np.full((size, size), 255, np.uint8)
    for r in rects[1:]:
        x0 = round((r["x"] - zone["x"]) * PX_PER_MM)
        y0 = round((r["y"] - zone["y"]) * PX_PER_MM)
        x1 = round((r["x"] + r["width"] - zone["x"]) * PX_PER_MM)
        y1 = round((r["y"] + r["height"] - zone["y"]) * PX_PER_MM)
        img[y0:y1, x0:x1] = 0
    return img


def decode(img: np.ndarray) -> str:
    text, points, _ = cv2.QRCodeDetector().detectAndDecode(img)
    assert points is not None, "no QR code found"
    return str(text)


@pytest.mark.parametrize(
    ("ssid", "password"),
    [("companion-AB12", None), ("companion-8ED6", 'se;cr:et,"1\\x'), ("Café, 2F", "12345678")],
)
def test_the_card_decodes_to_the_network_and_the_page(ssid: str, password: str | None) -> None:
    url = "http://10.42.0.1:8080/"
    svg = load("make_printables").table_card(ssid, password, url)
    assert decode(raster(svg, "wifi-qr")) == wifi_qr_payload(ssid, password)
    assert decode(raster(svg, "page-qr")) == url
    assert ssid in svg and (password is None or "Password" in svg)


def test_the_committed_example_decodes() -> None:
    svg = (REPO / "hardware/table-card-example.svg").read_text(encoding="utf-8")
    assert decode(raster(svg, "wifi-qr")) == "WIFI:T:nopass;S:companion-AB12;;"
    assert decode(raster(svg, "page-qr")) == "http://10.42.0.1:8080/"


def test_the_command_writes_this_box_card(tmp_path: Path) -> None:
    done = make_table_card(
        tmp_path, "--ssid", "companion-0042", "--password", "pass:word;1",
        "--url", "http://companion.local:8080/",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    svg = (tmp_path / "table-card.svg").read_text(encoding="utf-8")
    assert decode(raster(svg, "wifi-qr")) == "WIFI:T:WPA;S:companion-0042;P:pass\\:word\\;1;;"
    assert decode(raster(svg, "page-qr")) == "http://companion.local:8080/"
    # the card shows the password in words: only its owner may read the file
    assert (tmp_path / "table-card.svg").stat().st_mode & 0o777 == 0o600
    # the password on the command line still works, with the network commands' warning
    assert done.stderr.startswith("companion: warning: [network.password_on_command_line] ")
    assert "pass:word;1" not in done.stderr
    bad = make_table_card(tmp_path, "--ssid", "x", "--password", "short")
    assert bad.returncode == 2 and "8 to 63 characters" in bad.stderr


def test_the_password_from_standard_input_stays_off_the_command_line(tmp_path: Path) -> None:
    done = make_table_card(
        tmp_path, "--ssid", "companion-0042", "--password-stdin", stdin="piped secret;1\n"
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    svg = (tmp_path / "table-card.svg").read_text(encoding="utf-8")
    assert decode(raster(svg, "wifi-qr")) == "WIFI:T:WPA;S:companion-0042;P:piped secret\\;1;;"
    short = make_table_card(tmp_path / "short", "--password-stdin", stdin="short\n")
    assert short.returncode == 2 and "8 to 63 characters" in short.stderr
    # --password alone asks on a terminal: without one it says how, and writes nothing
    alone = make_table_card(tmp_path / "alone", "--ssid", "companion-0042", "--password")
    assert alone.returncode == 2 and "--password-stdin" in alone.stderr
    assert not (tmp_path / "alone").exists()
    both = make_table_card(tmp_path / "both", "--password", "12345678", "--password-stdin")
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_password_alone_asks_twice_without_echo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    main = load("make_printables").main
    argv = ["--table-card", "--out", str(tmp_path), "--ssid", "companion-0042", "--password"]
    prompts = typing_at(monkeypatch, "typed secret", "typed secret")
    assert main(argv) == 0
    assert len(prompts) == 2 and "box's own network" in prompts[0]
    svg = (tmp_path / "table-card.svg").read_text(encoding="utf-8")
    assert decode(raster(svg, "wifi-qr")) == "WIFI:T:WPA;S:companion-0042;P:typed secret;;"
    assert "typed secret" not in capsys.readouterr().err
    (tmp_path / "table-card.svg").unlink()
    typing_at(monkeypatch, "typed secret", "typed secreT")
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and "differ" in capsys.readouterr().err
    assert not (tmp_path / "table-card.svg").exists()
