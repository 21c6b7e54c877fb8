"""Every code the code base can emit has its words in both catalogues.

Refusals (4xx `code`), notices, announcements and camera questions' reasons reach the page as a
stable code with params; the dashboard shows the catalogue's `notice.<code>` string in the page's
language and the English sentence only for a code it does not know. This test reads the code
base (no server, no browser) for every code it can emit and fails on one that either catalogue
lacks, so that the English fallback never shows on a Japanese page.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from companion.doctor.checks import CODES as DOCTOR_CHECKS

ROOT = Path(__file__).resolve().parents[2]
COMPANION = ROOT / "companion"
I18N = ROOT / "web" / "static" / "i18n"

# Namespaces of codes: a string literal "<namespace>.<name>" anywhere in the code is a code.
NAMESPACES = (
    "rule",
    "camera",
    "final",
    "game",
    "london",
    "transeuropa",
    "trambahn",
    "reader",
    "photo",
    "payment",
    "request",
    "auth",
    "pair",
    "pairing",
    "lifecycle",
    "setup",
    "tickets",
    "health",
    "turn",
    "action",
    "store",
    "http",
    "service",
    "limit",
    "network",
    "doctor",
    "host",
    "rate",
)
CODE = re.compile(r"^(" + "|".join(NAMESPACES) + r")\.[a-z][a-z0-9_-]*[a-z0-9]$")
FILES = re.compile(r"\.(json|html|py|js|css|svg|png|jpg|txt|csv|md|db|sqlite|toml|yaml)$")
NOT_CODES = {"message"}  # "no code": the English text is shown as it is
# the set-up check's ids ("camera.found"): not codes (their words are doctor.label.<id> and the
# checks' codes doctor.<area>.<what>: tests/doctor/test_words.py)
NOT_CODES |= set(DOCTOR_CHECKS)
# a photo reading's problems (companion/vision: {"code": ...} in a reading's "problems"): not
# notices (their words are photo.problem.<code>: test_photo_problems_have_words below)
PHOTO_PROBLEMS = {
    m.group(1)
    for path in sorted((COMPANION / "vision").rglob("*.py"))
    for m in re.finditer(r'"code": "([a-z][a-z0-9-]*)"', path.read_text("utf-8"))
}
NOT_CODES |= PHOTO_PROBLEMS

# Codes built from a template: each template and what it can become. A new template fails the
# test until it is listed here (with its values) and the strings exist.
TEMPLATES = {
    "second-{}": ["second-locomotive", "second-bus"],
    "not-enough-{}": ["not-enough-trains", "not-enough-buses"],
    "camera.confirm_{}": ["camera.confirm_claim", "camera.confirm_station"],
    "rule.{}": [],  # rule.<the refusal's rule>: every rule is enumerated on its own
}


def _template(node: ast.JoinedStr) -> str:
    parts = []
    for v in node.values:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            parts.append(v.value)
        else:
            parts.append("{}")
    return "".join(parts)


def emitted_codes() -> tuple[set[str], set[str]]:
    """(codes, unknown templates) found in companion/**/*.py."""
    codes: set[str] = set()
    unknown: set[str] = set()

    def add_rule(value: ast.expr) -> None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            codes.add(f"rule.{value.value}")
        elif isinstance(value, ast.JoinedStr):
            t = _template(value)
            if t not in TEMPLATES:
                unknown.add(t)
            codes.update(f"rule.{x}" for x in TEMPLATES.get(t, []))

    def add_code(value: ast.expr) -> None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            if value.value not in NOT_CODES:
                codes.add(value.value)
        elif isinstance(value, ast.JoinedStr):
            t = _template(value)
            if t not in TEMPLATES:
                unknown.add(t)
            codes.update(TEMPLATES.get(t, []))

    for path in sorted(COMPANION.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"), str(path))
        in_templates = {
            id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "rule":
                add_rule(node.value)
            elif isinstance(node, ast.keyword) and node.arg in ("code", "reason_code"):
                add_code(node.value)
            elif isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=True):
                    if isinstance(k, ast.Constant) and k.value == "rule" and v is not None:
                        add_rule(v)
                    if isinstance(k, ast.Constant) and k.value in ("code", "reason_code"):
                        add_code(v)
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and CODE.match(node.value)
                and node.value not in NOT_CODES
                and not FILES.search(node.value)
                and id(node) not in in_templates
            ):
                codes.add(node.value)
    return codes, unknown


def catalogue(lang: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((I18N / f"{lang}.json").read_text("utf-8"))
    return data


def test_the_enumeration_finds_the_codes_it_should() -> None:
    codes, unknown = emitted_codes()
    assert unknown == set(), f"codes made from new templates: list them in TEMPLATES: {unknown}"
    # a sample of each kind, so that a change in how codes are written does not go unseen
    for code in (
        "rule.not-your-turn",  # IllegalActionError(rule=...)
        "rule.not-enough-trains",  # a template
        "rule.game_over",  # another game's rules
        "camera.route_taken",  # notice(code=...)
        "camera.confirm_claim",  # a template
        "final.round",  # an announcement
        "game.over",
        "reader.duplicate_card",
        "payment.warning",
    ):
        assert code in codes, code
    assert len(codes) > 80


def test_every_emitted_code_has_words_in_both_catalogues() -> None:
    codes, _ = emitted_codes()
    for lang in ("en", "ja"):
        strings = catalogue(lang)
        missing = sorted(c for c in codes if f"notice.{c}" not in strings)
        assert missing == [], f"{lang}.json lacks notice.<code> for {missing}"


def test_the_words_name_the_same_params_in_both_languages() -> None:
    en, ja = catalogue("en"), catalogue("ja")
    param = re.compile(r"\{(\w+)\}")
    for key, text in en.items():
        if not key.startswith("notice.") or not isinstance(text, str):
            continue
        other = ja.get(key)
        assert isinstance(other, str), key
        # Japanese may leave out a repeated name but never asks for one English does not give
        # (an "_one" form may keep {n} where English writes 1)
        given = set(param.findall(text)) | {"place"} | ({"n"} if key.endswith("_one") else set())
        assert set(param.findall(other)) <= given, key


def test_photo_problems_have_words_in_both_catalogues() -> None:
    assert "low-resolution" in PHOTO_PROBLEMS
    for lang in ("en", "ja"):
        strings = catalogue(lang)
        missing = sorted(c for c in PHOTO_PROBLEMS if f"photo.problem.{c}" not in strings)
        assert missing == [], f"{lang}.json lacks photo.problem.<code> for {missing}"
