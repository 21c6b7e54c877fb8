"""Refusals: one exception per HTTP status, each with one plain sentence, a stable code and the
params that fill in the code's words.

Every refusal answers ``{"error": "<English sentence>", "code": "<stable code>", "params":
{...}}`` (plus ``"rule"`` when a rule was broken). The catalogues ``web/static/i18n/*.json``
hold each code's words under ``notice.<code>``. A refusal with a ``rule`` and no code gets
``rule.<rule>``; one with neither gets its status's code (``request.invalid``,
``auth.forbidden``, ``request.not_found``, ``rule.illegal``, ``service.busy``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.core.errors import IllegalActionError, RulesError


class ServiceError(Exception):
    """A refused request; ``status`` is the HTTP status, the message one plain sentence."""

    status = 400
    default_code = "request.invalid"

    def __init_subclass__(
        cls, *, status: int | None = None, code: str | None = None, **kw: Any
    ) -> None:
        """``class Gone(ServiceError, status=410, code="request.gone")``: a refusal's status
        and the code it answers with when neither a code nor a rule is given."""
        super().__init_subclass__(**kw)
        if status is not None:
            cls.status = status
        if code is not None:
            cls.default_code = code

    def __init__(
        self,
        message: str,
        rule: str | None = None,
        *,
        code: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        if code is None:
            code = f"rule.{rule}" if rule else self.default_code
        self.code = code
        self.params: dict[str, Any] = dict(params or {})

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "error": sentence(self.message),
            "code": self.code,
            "params": self.params,
        }
        if self.rule:
            out["rule"] = self.rule
        return out


class BadRequest(ServiceError, status=400, code="request.invalid"): ...


class Forbidden(ServiceError, status=403, code="auth.forbidden"): ...


class NotFound(ServiceError, status=404, code="request.not_found"): ...


class Conflict(ServiceError, status=409, code="rule.illegal"): ...


class Unavailable(ServiceError, status=503, code="service.busy"): ...


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def conflict(exc: RulesError) -> Conflict:
    """A rules refusal as a 409, keeping the rule's code and params."""
    rule = getattr(exc, "rule", None) or "illegal"
    if isinstance(exc, IllegalActionError):
        return Conflict(sentence(str(exc)), rule, code=exc.code, params=exc.params)
    return Conflict(sentence(str(exc)), rule)
