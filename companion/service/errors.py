"""Refusals: one exception per HTTP status, each with one plain sentence (and a rule code)."""

from __future__ import annotations

from companion.core.errors import RulesError


class ServiceError(Exception):
    """A refused request; ``status`` is the HTTP status, the message one plain sentence."""

    status = 400

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def to_json(self) -> dict[str, str]:
        out = {"error": self.message}
        if self.rule:
            out["rule"] = self.rule
        return out


class BadRequest(ServiceError):
    status = 400


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


class Unavailable(ServiceError):
    status = 503


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def conflict(exc: RulesError) -> Conflict:
    return Conflict(sentence(str(exc)), getattr(exc, "rule", None) or "illegal")
