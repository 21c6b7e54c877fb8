"""`companion trambahn score FILE [--json]`: one Trambahn scoring, or a session of them.

FILE holds either one scoring (``"scoring"`` plus both players' lines, optionally
``"totals_before"``) or a whole session (``"scorings"``); see companion/trambahn/README.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from companion.cli import command_group
from companion.commands.score import print_report, read_json_file


def register(sub: Any) -> None:
    tsub = command_group(sub, "trambahn", "Trambahn: score one scoring or a session of ten")
    s = tsub.add_parser("score", help="points of one scoring or a session (JSON)")
    s.add_argument("file", help="the scoring or session as JSON ('-' reads standard input)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=run_score)


def score_data(data: Any) -> dict[str, Any]:
    """The report for a one-scoring or a session file (raises RulesError subclasses)."""
    from companion.core.errors import NotationError
    from companion.core.scoring import leaders
    from companion.trambahn import Scoring, Session

    if not isinstance(data, Mapping):
        raise NotationError("a Trambahn file must be a JSON object")
    if data.get("game", "trambahn") != "trambahn":
        raise NotationError(f"this is a {data.get('game')!r} file, not Trambahn")
    if "scorings" in data:
        return Session.from_json(data).report()
    scoring = Scoring.from_json(data)
    names = list(scoring.lines)
    session = Session((names[0], names[1]))
    before = data.get("totals_before", {})
    done = data.get("terminal_scorings_before", 0)
    if not isinstance(before, Mapping) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in before.values()
    ):
        raise NotationError("'totals_before' must map each player's name to their points")
    if set(before) - set(names):
        raise NotationError(f"'totals_before' names someone who is not playing: {sorted(before)}")
    if not isinstance(done, int) or isinstance(done, bool) or not 0 <= done <= 9:
        raise NotationError("'terminal_scorings_before' must be 0-9 (the game ends at 10)")
    session.add(scoring)
    report = session.report()
    row = report["scorings"][0]
    totals = {n: int(before.get(n, 0)) + row["points"][n] for n in names}
    n = done + (1 if scoring.kind == "terminal" else 0)
    over = n >= 10
    return {
        **{k: v for k, v in row.items() if k not in ("totals", "terminal_scoring")},
        "terminal_scoring": n if scoring.kind == "terminal" else None,
        "totals": totals,
        "terminal_scorings": n,
        "game_over": over,
        "winners": leaders(totals, names) if over else [],
    }


def run_score(args: argparse.Namespace) -> int:
    from companion.cli import CommandError
    from companion.core.errors import IllegalActionError, NotationError, RulesError

    data = read_json_file(args.file)
    try:
        report = score_data(data)
    except IllegalActionError as exc:
        raise CommandError(f"impossible session: {exc}") from None
    except NotationError as exc:
        raise CommandError(str(exc)) from None
    except RulesError as exc:
        raise CommandError(f"impossible position: {exc}") from None
    return print_report(report, args.json, lambda: format_report(report))


def _row(s: Mapping[str, Any]) -> str:
    what = (
        f"terminal {s['color']} (#{s['terminal_scoring']})"
        if s["kind"] == "terminal"
        else f"extra run {s['player']} {s['line']}"
    )
    pts = ", ".join(f"{p} +{v}" for p, v in s["points"].items())
    tot = ", ".join(f"{p} {v}" for p, v in s["totals"].items())
    return f"{what}: {pts}  (totals: {tot})"


def format_report(report: Mapping[str, Any]) -> str:
    lines = [_row(s) for s in report["scorings"]] if "scorings" in report else [_row(report)]
    lines.append(f"terminal scorings: {report['terminal_scorings']}/10")
    if report["game_over"]:
        w = report["winners"]
        lines.append(f"game over; winner{'s' if len(w) > 1 else ''}: {', '.join(w)}")
    return "\n".join(lines)
