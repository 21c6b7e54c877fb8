"""The JSON form of a plain record: a dataclass whose JSON is its fields by name.

Many records (a payment problem, a score sheet's items, a stored event, a replay's difference)
write themselves out field by field; :func:`fields_json` is that one loop, so a record's JSON
cannot drift from its fields. Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import Any


def plain(value: Any) -> Any:
    """``value`` as JSON keeps it: a tuple as a list, a mapping as a dict of its own, anything
    else as it is."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def fields_json(record: Any, names: Iterable[str] | None = None) -> dict[str, Any]:
    """``record``'s dataclass fields by name, each made :func:`plain`; with ``names``, only the
    attributes so named, in that order (for an object whose JSON keeps some attributes as they
    are and builds the rest)."""
    keys = [f.name for f in fields(record)] if names is None else names
    return {name: plain(getattr(record, name)) for name in keys}
