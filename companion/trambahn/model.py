"""Trambahn's cards and a player's lines, as value types with JSON forms.

From the rule text: four colours (blue, brown, green, yellow); stop cards 1-10 in each colour
(1 and 10 twice, 2-9 three times: 28 per colour, 112 in all); conductor cards (wild); tram cards
horse tram x2 (5 cards, 5,000 marks), steam tram x3 (4, 10,000) and electric tram x4 (7, 15,000).
A line is one colour's stops laid in ascending order (numbers may be skipped); a 10 finishes it.
Conductors go on any unfinished line, as many as wanted, and score nothing. Each line carries at
most one tram card. A stop scores 1 for 1-6, 2 for 7-9 and 3 for 10; a line scores the sum of its
stops times its tram's multiplier.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.errors import InvalidStateError, NotationError

COLORS: tuple[str, ...] = ("blue", "brown", "green", "yellow")
COLOR_ALIASES: Mapping[str, str] = {
    "blue": "blue", "青": "blue",
    "brown": "brown", "茶": "brown",
    "green": "green", "緑": "green",
    "yellow": "yellow", "黄": "yellow",
}  # fmt: skip
CONDUCTOR = "C"
CONDUCTOR_ALIASES = frozenset({"c", "conductor", "車掌"})
STOP_VALUES = range(1, 11)
FINAL_STOP = 10
EXTRA_RUN_AT = 8  # cards in one line
PASSENGERS_PER_SCORING = 4
TERMINAL_SCORINGS = 10


def stop_supply(value: int) -> int:
    """Copies of one stop value in one colour: 1 and 10 twice, the rest three times."""
    return 2 if value in (1, FINAL_STOP) else 3


@dataclass(frozen=True, slots=True)
class Tram:
    multiplier: int
    name: str
    cards: int
    price: int


TRAMS: Mapping[int, Tram] = {
    2: Tram(2, "horse", 5, 5000),
    3: Tram(3, "steam", 4, 10000),
    4: Tram(4, "electric", 7, 15000),
}
TRAM_ALIASES: Mapping[str, int] = {
    "horse": 2, "馬車鉄道": 2, "x2": 2, "×2": 2,
    "steam": 3, "蒸気機関車": 3, "x3": 3, "×3": 3,
    "electric": 4, "電車": 4, "x4": 4, "×4": 4,
}  # fmt: skip

Card = int | str  # a stop value 1-10 or CONDUCTOR


def stop_points(value: int) -> int:
    """Points of one stop card: 1-6 -> 1, 7-9 -> 2, 10 -> 3."""
    if not 1 <= value <= FINAL_STOP:
        raise NotationError(f"stop cards are numbered 1-10, not {value}")
    return 1 if value <= 6 else 2 if value <= 9 else 3


def parse_color(text: Any) -> str:
    color = COLOR_ALIASES.get(str(text).strip().lower()) if isinstance(text, str) else None
    if color is None:
        raise NotationError(f"unknown line colour {text!r}: expected one of {', '.join(COLORS)}")
    return color


def parse_card(value: Any) -> Card:
    if isinstance(value, bool):
        raise NotationError(f"{value!r} is not a card")
    if isinstance(value, int):
        if value in STOP_VALUES:
            return value
        raise NotationError(f"stop cards are numbered 1-10, not {value}")
    if isinstance(value, str):
        text = value.strip().lower()
        if text in CONDUCTOR_ALIASES:
            return CONDUCTOR
        if text.isdigit():
            return parse_card(int(text))
    raise NotationError(f"{value!r} is not a card: write a stop number 1-10 or 'C' for a conductor")


def parse_tram(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value in TRAMS:
        return value
    if isinstance(value, str) and value.strip().lower() in TRAM_ALIASES:
        return TRAM_ALIASES[value.strip().lower()]
    raise NotationError(
        f"unknown tram {value!r}: expected horse (2), steam (3), electric (4) or null"
    )


@dataclass(frozen=True, slots=True)
class Line:
    """One of a player's lines: its colour, tram multiplier (None: no tram yet) and its cards in
    the order they were laid."""

    id: str
    color: str
    tram: int | None
    cards: tuple[Card, ...] = ()

    @property
    def stops(self) -> tuple[int, ...]:
        return tuple(c for c in self.cards if isinstance(c, int))

    @property
    def conductors(self) -> int:
        return sum(1 for c in self.cards if c == CONDUCTOR)

    @property
    def finished(self) -> bool:
        return FINAL_STOP in self.stops

    def stop_points(self, upto: int | None = None) -> int:
        cards = self.cards if upto is None else self.cards[:upto]
        return sum(stop_points(c) for c in cards if isinstance(c, int))

    def points(self, upto: int | None = None) -> int:
        """What the line scores now (or with only its first ``upto`` cards); 0 without a tram."""
        return self.stop_points(upto) * (self.tram or 0)

    def problem_adding(self, card: Card) -> str | None:
        """Why ``card`` may not be laid on this line (a rule key), or None."""
        if self.finished:
            return "line_finished"
        if isinstance(card, int) and self.stops and card <= self.stops[-1]:
            return "ascending"
        return None

    def validate(self) -> None:
        for i, card in enumerate(self.cards):
            problem = Line(self.id, self.color, self.tram, self.cards[:i]).problem_adding(card)
            if problem == "line_finished":
                raise InvalidStateError(
                    f"line {self.id}: a 10 finishes a line; nothing may follow it"
                )
            if problem == "ascending":
                raise InvalidStateError(
                    f"line {self.id}: stops must be laid in ascending order "
                    f"({', '.join(map(str, self.stops))})"
                )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "color": self.color,
            "tram": None if self.tram is None else TRAMS[self.tram].name,
            "cards": list(self.cards),
        }

    @classmethod
    def from_json(cls, data: Any, default_id: str = "") -> Line:
        if not isinstance(data, Mapping):
            raise NotationError("a line must be a JSON object with color, tram and cards")
        color = parse_color(data.get("color"))
        cards = data.get("cards", [])
        if not isinstance(cards, list):
            raise NotationError("a line's 'cards' must be a list such as [2, 5, \"C\", 7]")
        lid = data.get("id") or default_id or color
        line = cls(str(lid), color, parse_tram(data.get("tram")), tuple(map(parse_card, cards)))
        line.validate()
        return line


def lines_from_json(data: Any, owner: str) -> tuple[Line, ...]:
    if not isinstance(data, list):
        raise NotationError(f"{owner}'s 'lines' must be a list")
    lines: list[Line] = []
    per_color: Counter[str] = Counter()
    for raw in data:
        color = parse_color(raw.get("color")) if isinstance(raw, Mapping) else ""
        per_color[color] += 1
        lines.append(Line.from_json(raw, f"{color}-{per_color[color]}"))
    ids = Counter(line.id for line in lines)
    dup = [i for i, k in ids.items() if k > 1]
    if dup:
        raise InvalidStateError(f"{owner} has two lines called {dup[0]!r}")
    return tuple(lines)


def check_supply(all_lines: Iterable[Line]) -> None:
    """Refuse more copies of a stop card or tram than the game has."""
    stops: Counter[tuple[str, int]] = Counter()
    trams: Counter[int] = Counter()
    for line in all_lines:
        for v in line.stops:
            stops[(line.color, v)] += 1
        if line.tram is not None:
            trams[line.tram] += 1
    for (color, v), k in sorted(stops.items()):
        if k > stop_supply(v):
            raise InvalidStateError(
                f"{k} {color} {v}s on the table; the game has only {stop_supply(v)}"
            )
    for m, k in trams.items():
        if k > TRAMS[m].cards:
            raise InvalidStateError(
                f"{k} {TRAMS[m].name} trams on the table; the game has only {TRAMS[m].cards}"
            )


def card_counts() -> dict[str, int]:
    """The deck as the rule text lists it (for documentation and tests)."""
    per_color = sum(stop_supply(v) for v in STOP_VALUES)
    return {
        "stop_cards_per_color": per_color,
        "stop_cards": per_color * len(COLORS),
        "tram_cards": sum(t.cards for t in TRAMS.values()),
    }


def line_table(lines: Sequence[Line]) -> list[dict[str, Any]]:
    return [line.to_json() for line in lines]
