"""The words a new owner reads on the first evening (issue 21's QA): no page sends a player to a
terminal, each tells what to do on the phone, in the names the page shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

I18N = Path(__file__).resolve().parents[2] / "web" / "static" / "i18n"


def catalogue(lang: str) -> dict[str, Any]:
    return dict(json.loads((I18N / f"{lang}.json").read_text("utf-8")))


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_table_page_names_the_way_to_become_host(lang: str) -> None:
    words = catalogue(lang)
    hint = words["host.login_hint"]
    # the tab the page shows a guest, not the code printed in a terminal at start-up
    assert f"「{words['nav.claim']}」" in hint or f"“{words['nav.claim']}”" in hint
    assert "二次元コード" not in hint and "starts" not in hint


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_claim_notice_names_the_claim_page(lang: str) -> None:
    words = catalogue(lang)
    notice = words["notice.host.claim_open"]
    assert f"「{words['nav.claim']}」" in notice or f"“{words['nav.claim']}”" in notice
    assert "ホスト画面" not in notice and "host page" not in notice  # a guest has none
    assert "{n}" in notice


def test_the_claim_notice_says_phone_as_the_other_pages() -> None:
    assert "スマートフォン" not in catalogue("ja")["notice.host.claim_open"]


@pytest.mark.parametrize(("lang", "word"), [("ja", "パスワード"), ("en", "password")])
def test_a_failed_join_mentions_the_password(lang: str, word: str) -> None:
    text = catalogue(lang)["notice.network.join_failed"]
    assert word in text and "{ssid}" in text


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_claimed_host_device_is_listed_by_the_page_it_came_from(lang: str) -> None:
    words = catalogue(lang)
    assert words["nav.claim"] in words["host.via_claim"]


def test_the_focus_number_says_what_it_is_and_what_is_good() -> None:
    import dataclasses

    from companion.doctor.checks import camera_checks, settings
    from tests.doctor.test_checks import GOOD

    good_from = round(settings()["camera"]["sharpness"]["warn_below"])
    blurred = camera_checks("sim", dataclasses.replace(GOOD, sharpness=good_from - 7.0))
    line = next(c for c in blurred if c.id == "camera.sharpness")
    assert line.status == "warn"
    for lang, word in (("ja", "鮮明さ"), ("en", "sharpness")):
        text = catalogue(lang)[line.code].format(**line.params)
        assert f"{word} {good_from - 7}" in text and str(good_from) in text, text
