"""The dashboard's static files, checked without a browser: the map is up to date with the
package's data, both languages have every string the code asks for, no file points outside."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
STATIC = WEB / "static"


def load(lang: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def test_map_json_is_built_from_the_package_data() -> None:
    res = subprocess.run(
        [sys.executable, str(WEB / "build_map.py"), "--check"], capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    data = json.loads((STATIC / "map.json").read_text("utf-8"))
    facts = json.loads((ROOT / "companion" / "data" / "europe.json").read_text("utf-8"))
    assert len(data["routes"]) == len(facts["routes"]) == 101
    assert len(data["cities"]) == 47
    spaces = sum(len(r[7]) for r in data["routes"])
    assert spaces == sum(r["length"] for r in facts["routes"])
    for _, _, x, y in data["cities"]:
        assert 0 <= x <= 1500 and 0 <= y <= 1000


def test_build_map_check_catches_a_stale_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sys.path.insert(0, str(WEB))
    try:
        import build_map
    finally:
        sys.path.remove(str(WEB))
    out = tmp_path / "map.json"
    monkeypatch.setattr(build_map, "OUT", out)
    assert build_map.main(["--check"]) == 1  # missing
    assert build_map.main([]) == 0
    assert build_map.main(["--check"]) == 0
    out.write_text(out.read_text("utf-8").replace('"paris"', '"pariz"'), "utf-8")
    assert build_map.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().err


NOT_STRINGS = {"cities", "readings", "places"}


def out_of_order(table: dict[str, object], within: str = "") -> list[str]:
    """Keys of ``table`` (and of the tables in it) after a greater key: the catalogues are
    sorted by key (a new key has one place to go, not the end of the file)."""
    keys = list(table)
    late = [within + b for a, b in itertools.pairwise(keys) if b < a]
    for k, v in table.items():
        if isinstance(v, dict):
            late += out_of_order(v, f"{within}{k}/")
    return late


def test_both_languages_have_the_same_keys_in_sorted_order() -> None:
    en, ja = load("en"), load("ja")
    assert set(en) - NOT_STRINGS == set(ja) - NOT_STRINGS
    for strings in (en, ja):
        assert all(isinstance(v, str) and v for k, v in strings.items() if k not in NOT_STRINGS)
        assert out_of_order(strings) == []
    assert out_of_order({"a.b": "", "a.c": {"y": "", "x": ""}, "a.b_c": ""}) == ["a.b_c", "a.c/x"]


def test_city_readings_are_facts_about_known_cities() -> None:
    # other names people type for a city (exonyms, older and newer spellings, kana readings)
    facts = json.loads((ROOT / "companion" / "data" / "europe.json").read_text("utf-8"))
    ids = {c["id"] for c in facts["cities"]}
    latin, katakana = re.compile(r"^[A-Za-zÀ-ÿ .'-]+$"), re.compile(r"^[゠-ヿ]+$")
    for lang, script in (("en", latin), ("ja", katakana)):
        readings = load(lang)["readings"]
        assert isinstance(readings, dict) and len(readings) >= 15
        for city, names in readings.items():
            assert city in ids, city
            assert isinstance(names, list) and names
            assert all(isinstance(n, str) and script.match(n) for n in names), (lang, city, names)
    assert "Munich" in load("en")["readings"]["munchen"]  # type: ignore[index]
    assert "キーウ" in load("ja")["readings"]["kyiv"]  # type: ignore[index]


def test_japanese_city_names_and_rulebook_terms() -> None:
    ja = load("ja")
    cities = ja["cities"]
    assert isinstance(cities, dict)
    facts = json.loads((ROOT / "companion" / "data" / "europe.json").read_text("utf-8"))
    assert set(cities) == {c["id"] for c in facts["cities"]}
    assert (
        cities["paris"] == "パリ"
        and cities["berlin"] == "ベルリン"
        and cities["wien"] == "ウィーン"
    )
    text = json.dumps(ja, ensure_ascii=False)
    for term in (
        "列車カード",
        "SLカード",
        "行き先チケット",
        "駅",
        "トンネル",
        "フェリー",
        "ヨーロッパ特急",
        "最終ラウンド",
    ):
        assert term in text, term


def used_keys() -> set[str]:
    keys: set[str] = set()
    for path in list((STATIC / "js").glob("*.js")) + list((WEB / "templates").glob("*.html")):
        text = path.read_text("utf-8")
        keys |= set(re.findall(r"""\bt\(\s*"([a-z_]+\.[a-z_0-9]+)\"""", text))
        keys |= set(re.findall(r"""data-i18n(?:-label)?="([a-z_]+\.[a-z_0-9]+)\"""", text))
        keys |= set(re.findall(r"""dataset\.i18n = "([a-z_]+\.[a-z_0-9]+)\"""", text))
        keys |= set(re.findall(r"""button\([^)]*"([a-z]+\.[a-z_]+)", \(\)""", text))
    return keys


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_key_the_code_uses_exists(lang: str) -> None:
    strings = load(lang)
    keys = used_keys()
    assert len(keys) > 80  # the extraction found the code's keys
    missing = sorted(k for k in keys if k not in strings)
    assert missing == []
    families = {
        "card": [
            "pink",
            "blue",
            "orange",
            "white",
            "green",
            "yellow",
            "black",
            "red",
            "locomotive",
            "grey",
        ],
        "color": ["blue", "red", "green", "yellow", "black"],
        "phase": ["none", "setup", "playing", "over", "finished"],
        "variant": ["europe", "1912", "mega_europe", "big_cities"],
        "pay": ["strict", "lenient", "off"],
        "mode": ["table", "photo"],
    }
    for family, names in families.items():
        for name in names:
            assert f"{family}.{name}" in strings, f"{family}.{name}"


def test_no_outside_addresses_in_the_dashboard() -> None:
    for path in STATIC.rglob("*"):
        if path.suffix in {".js", ".css", ".html", ".json"}:
            text = path.read_text("utf-8")
            found = re.findall(r"https?://[^\s\"')]+", text)
            assert [u for u in found if "www.w3.org/2000/svg" not in u] == [], path
    for path in (WEB / "templates").glob("*.html"):
        assert "http" not in path.read_text("utf-8"), path


def test_london_places_have_japanese_names() -> None:
    facts = json.loads((ROOT / "companion" / "data" / "london.json").read_text("utf-8"))
    places = load("ja")["places"]
    assert isinstance(places, dict)
    assert set(places) == {loc["id"] for loc in facts["locations"]}
    assert places["tower-of-london"] == "ロンドン塔"
    assert not any(re.search(r"[A-Za-z]", name) for name in places.values())
