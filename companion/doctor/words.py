"""The words of the checks for the command's text output: the dashboard's catalogue
(``web/static/i18n/<lang>.json``), so the terminal and the host page say the same."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

PLACEHOLDER = re.compile(r"\{(\w+)\}")


@cache
def catalogue(lang: str = "en") -> dict[str, str]:
    """The dashboard's strings in ``lang`` (empty when its files are not installed)."""
    from companion.webapp import web_dirs

    for d in web_dirs():
        path = d / "static" / "i18n" / f"{lang}.json"
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            return {k: v for k, v in data.items() if isinstance(v, str)}
    return {}


def fill(text: str, params: Mapping[str, Any]) -> str:
    """``{name}`` replaced by its param (as the page does; unknown names are kept)."""
    return PLACEHOLDER.sub(lambda m: str(params[m[1]]) if m[1] in params else m[0], text)


def sentence(code: str, params: Mapping[str, Any], lang: str = "en") -> str:
    """The check's words with its params (the code itself when there are none)."""
    text = catalogue(lang).get(code)
    return fill(text, params) if text is not None else code


def told(code: str, params: Mapping[str, Any], lang: str = "en") -> str:
    """The check's words and, in brackets, its ``detail`` (what only a terminal is told: a
    command to run, a device's own error): ``companion doctor``'s lines, ``serve``'s warnings."""
    detail = params.get("detail")
    text = sentence(code, params, lang)
    return f"{text} ({detail})" if detail else text


def software_missing_line(source: str) -> str:
    """The camera check's ``software_missing`` line for the camera ``source``, for a terminal
    (the words, the command in brackets): ``serve``'s warning, ``vision watch``'s error."""
    from companion.doctor.checks import camera_checks

    (line,) = camera_checks(source, None, software=False)
    return told(line.code, line.params)


def source_problem(exc: Exception) -> str:
    """A frame source's ``SourceError`` in one sentence for a terminal: the Pi camera without
    its software as the set-up check says it, anything else in the source's own words."""
    from companion.vision.live.sources import CameraSoftwareMissing

    if isinstance(exc, CameraSoftwareMissing):
        return software_missing_line(exc.source)
    return str(exc)
