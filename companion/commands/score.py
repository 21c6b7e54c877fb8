"""`companion score STATE.json [--json]`: final scoring of a finished game."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.core.errors import RulesError
from companion.core.notation import end_state_from_json
from companion.core.scoring import FinalScore, score_final


def register(sub: Any) -> None:
    p = sub.add_parser("score", help="final scoring of a finished game (STATE.json)")
    p.add_argument("state", help="the end state as JSON ('-' reads standard input)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def read_json_file(path: str) -> Any:
    from companion.cli import CommandError

    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CommandError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise CommandError(f"{path} is a folder, not a JSON file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {path}: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None


def print_report(report: Any, as_json: bool, text: Callable[[], str]) -> int:
    """Print a command's report as its JSON (the CLI contract's form) or as ``text()``; 0."""
    print(json.dumps(report, indent=1, ensure_ascii=False) if as_json else text())
    return 0


def run(args: argparse.Namespace) -> int:
    from companion.cli import CommandError
    from companion.data import load_map

    data = read_json_file(args.state)
    if _map_of(data) == "london":
        return run_london(data, as_json=args.json)
    try:
        map_id, players = end_state_from_json(data)
        try:
            game_map = load_map(map_id)
        except KeyError:
            raise CommandError(f"unknown map {map_id!r}: expected europe or london") from None
        result = score_final(game_map, players)
    except RulesError as exc:
        raise CommandError(f"impossible state: {exc}") from None
    return print_report(result.to_json(), args.json, lambda: format_table(result))


def _map_of(data: Any) -> str | None:
    if isinstance(data, dict) and isinstance(data.get("map"), str):
        return str(data["map"]).strip().lower()
    return None


def run_london(data: Any, *, as_json: bool) -> int:
    """Score a finished Ticket to Ride: London game (``"map": "london"``)."""
    from companion.cli import CommandError
    from companion.london import end_state_from_json as london_state
    from companion.london import london_map
    from companion.london import score_final as london_score

    try:
        result = london_score(london_map(), london_state(data))
    except RulesError as exc:
        raise CommandError(f"impossible state: {exc}") from None
    return print_report(result.to_json(), as_json, lambda: format_london_table(result))


def format_london_table(result: Any) -> str:
    cols = ["rank", "player", "routes", "tickets", "districts", "total"]
    rows = []
    for p in sorted(result.players, key=lambda p: (p.rank, p.color)):
        done = [str(d.district) for d in p.districts if d.completed]
        rows.append(
            [
                str(p.rank),
                f"{p.name} ({p.color})" if p.name != p.color else p.color,
                str(p.route_points),
                f"{p.ticket_points:+d} ({p.tickets_completed}/{len(p.tickets)})",
                f"{p.district_points} ({', '.join(done) or 'none'})",
                str(p.total),
            ]
        )
    return _table(cols, rows, result.winners)


def _table(cols: list[str], rows: list[list[str]], winners: list[str]) -> str:
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
    lines.append(f"winner{'s' if len(winners) > 1 else ''}: {', '.join(winners)}")
    return "\n".join(lines)


def format_table(result: FinalScore) -> str:
    cols = ["rank", "player", "routes", "tickets", "stations", "express", "total"]
    rows = []
    for p in sorted(result.players, key=lambda p: (p.rank, p.color)):
        done = sum(1 for t in p.tickets if t.completed)
        rows.append(
            [
                str(p.rank),
                f"{p.name} ({p.color})" if p.name != p.color else p.color,
                str(p.route_points),
                f"{p.ticket_points:+d} ({done}/{len(p.tickets)})",
                f"{p.station_points} ({p.stations_built} built)",
                f"{p.express_points} (longest {p.longest_route})",
                str(p.total),
            ]
        )
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
    winners = ", ".join(result.winners)
    lines.append(f"winner{'s' if len(result.winners) > 1 else ''}: {winners}")
    return "\n".join(lines)
