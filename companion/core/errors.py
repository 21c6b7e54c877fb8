"""Errors raised by the rules core. Each names the rule that was broken."""

from __future__ import annotations


class RulesError(ValueError):
    """Base class: something the rules core refuses, with a plain sentence."""


class IllegalActionError(RulesError):
    """An action the rules forbid. ``rule`` is a short stable key of the rule broken."""

    def __init__(self, message: str, rule: str = "illegal") -> None:
        super().__init__(message)
        self.rule = rule


class InvalidStateError(RulesError):
    """A game state that cannot arise in a real game (e.g. 46 trains on the board)."""


class NotationError(RulesError):
    """Text or JSON that does not describe a card, action or state."""
