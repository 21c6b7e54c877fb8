"""Errors raised by the rules core. Each names the rule that was broken.

An :class:`IllegalActionError` also carries a stable machine ``code`` (``rule.<rule>`` unless
given; the catalogues ``web/static/i18n/*.json`` hold its words under ``notice.<code>``) and
the ``params`` that fill those words in, so a service can answer ``{"error", "code",
"params"}`` while the English sentence stays the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class RulesError(ValueError):
    """Base class: something the rules core refuses, with a plain sentence."""


class IllegalActionError(RulesError):
    """An action the rules forbid. ``rule`` is a short stable key of the rule broken, ``code``
    its stable machine code and ``params`` what fills in the code's words."""

    def __init__(
        self,
        message: str,
        rule: str = "illegal",
        *,
        code: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.code = code if code is not None else f"rule.{rule}"
        self.params: dict[str, Any] = dict(params or {})

    def to_json(self) -> dict[str, Any]:
        """The refusal as a JSON body: the English sentence, the code and its params."""
        return {
            "error": str(self),
            "code": self.code,
            "params": dict(self.params),
            "rule": self.rule,
        }


class InvalidStateError(RulesError):
    """A game state that cannot arise in a real game (e.g. 46 trains on the board)."""


class NotationError(RulesError):
    """Text or JSON that does not describe a card, action or state."""
