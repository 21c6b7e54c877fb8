"""Debouncing: a tag is GONE only after 3 missed polls (shared vectors + explicit cases)."""

from __future__ import annotations

from typing import Any

import debounce
import pytest


def run(polls: list[list[str]], misses: int = 3) -> list[list[Any]]:
    d = debounce.Debouncer(misses)
    events: list[list[Any]] = []
    for i, seen in enumerate(polls):
        arrived, gone = d.update(seen)
        events += [[i, "TAG", u] for u in arrived]
        events += [[i, "GONE", u] for u in gone]
    return events


def test_vectors(vectors: dict[str, Any]) -> None:
    for v in vectors["debounce"]:
        assert run(v["polls"]) == v["events"], v["why"]


@pytest.mark.parametrize("missed", [1, 2])
def test_fewer_than_three_misses_is_not_gone(missed: int) -> None:
    polls = [["A"]] + [[]] * missed + [["A"]] + [[]] * 2
    assert run(polls) == [[0, "TAG", "A"]]


def test_gone_on_exactly_the_third_missed_poll() -> None:
    assert run([["A"], [], [], []]) == [[0, "TAG", "A"], [3, "GONE", "A"]]
    assert run([["A"], [], []]) == [[0, "TAG", "A"]]


def test_misses_parameter_and_clear() -> None:
    assert run([["A"], []], misses=1) == [[0, "TAG", "A"], [1, "GONE", "A"]]
    d = debounce.Debouncer()
    d.update(["A", "B", "A"])
    assert d.uids() == ["A", "B"]
    assert d.clear() == ["A", "B"]
    assert not d.is_present("A")
    with pytest.raises(ValueError):
        debounce.Debouncer(0)
