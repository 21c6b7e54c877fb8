"""The terminology in one place: web/static/i18n/glossary.json lists one word per thing (路線,
プレイヤー, 手の記録, ...) and the Japanese punctuation (full-width 「：」 and （）); every string
of both catalogues follows it. Checked without a browser."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
I18N = ROOT / "web" / "static" / "i18n"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((I18N / name).read_text("utf-8"))
    return data


def strings(lang: str) -> dict[str, str]:
    """The catalogue's sentences (city names and readings are names, not sentences)."""
    return {k: v for k, v in load(f"{lang}.json").items() if isinstance(v, str)}


GLOSSARY = load("glossary.json")


def test_every_japanese_string_uses_the_glossary_words() -> None:
    ja = strings("ja")
    wrong = [
        (key, avoid, term["ja"])
        for term in GLOSSARY["terms"]
        for avoid in term.get("ja_not", [])
        for key, text in ja.items()
        if avoid in text
    ]
    assert wrong == []
    # and the words are used: each term appears in the catalogue it names
    for term in GLOSSARY["terms"]:
        assert any(term["ja"] in text for text in ja.values()), term["thing"]
        assert any(term["en"] in text.lower() for text in strings("en").values()), term["thing"]


def test_japanese_punctuation_is_full_width() -> None:
    literal = set(GLOSSARY["literal"]["keys"])
    half = "".join(GLOSSARY["punctuation"]["ja"].values())
    bad = {
        key: text
        for key, text in strings("ja").items()
        if key not in literal and re.search(f"[{re.escape(half)}]", text)
    }
    assert bad == {}


def test_english_strings_have_no_japanese_and_japanese_ones_name_players_not_colours() -> None:
    kana = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
    en = strings("en")
    assert [k for k, v in en.items() if kana.search(v) and not k.startswith("lang.")] == []
    ja = strings("ja")
    # a refusal about whose turn it is names the player whose turn it is (the page fills
    # {current} with 「アキ（赤）」)
    assert "{current}" in ja["notice.rule.not-your-turn"]
    assert ja["player.label"] == "{name}（{color}）"
    # an undo says what it undid, not a log position
    assert "{what}" in ja["log.undo_what"] and "取り消しました" in ja["log.undo_what"]
    assert ja["log.new_game"] == "ゲームを開始しました"


def test_japanese_strings_have_no_latin_words() -> None:
    """Wi-Fi, LED, QR, USB... in Japanese words; only the glossary's few exceptions stay (the
    parameters, filled by the page, are checked on the pages themselves)."""
    latin = GLOSSARY["latin"]
    allowed, protocol = set(latin["allowed"]), set(latin["keys"])
    found = {
        key: words
        for key, text in strings("ja").items()
        if key not in protocol
        and (words := set(re.findall(r"[A-Za-z]+", re.sub(r"\{\w+\}", "", text))) - allowed)
    }
    assert found == {}
    # the exceptions are real: each protocol key still quotes something in Latin letters
    ja = strings("ja")
    assert all(re.search(r"[A-Za-z]{3,}", ja[key]) for key in protocol)
