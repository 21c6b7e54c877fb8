"""Every check's code and every check's name has its words in both catalogues, with the same
placeholders, and the command's text output uses them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.doctor.checks import CODES, all_codes
from companion.doctor.words import fill, sentence

I18N = Path(__file__).resolve().parents[2] / "web" / "static" / "i18n"
PLACE = re.compile(r"\{(\w+)\}")


def load(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_every_code_and_name_has_words(lang: str) -> None:
    strings = load(lang)
    missing = [c for c in all_codes() if c not in strings]
    missing += [f"doctor.label.{cid}" for cid in CODES if f"doctor.label.{cid}" not in strings]
    assert missing == []


def test_both_languages_fill_the_same_params() -> None:
    ja, en = load("ja"), load("en")
    for code in all_codes():
        assert set(PLACE.findall(ja[code])) == set(PLACE.findall(en[code])), code


def test_japanese_words_use_full_width_punctuation() -> None:
    ja = load("ja")
    for code in all_codes():
        text = ja[code]
        assert ":" not in text and "(" not in text, code


def test_sentence_fills_params() -> None:
    assert sentence("doctor.camera.resolution_warn", {"width": 960, "height": 540}).startswith(
        "Resolution 960×540 is low"
    )
    assert sentence("doctor.nothing", {}) == "doctor.nothing"
    assert fill("{a} and {b}", {"a": 1}) == "1 and {b}"
