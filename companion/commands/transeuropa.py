"""`companion transeuropa ...`: score a Trans Europa round, check a move, check the lattice data.

companion transeuropa score ROUND.json [--json] [--alt-costs]
companion transeuropa move ROUND.json ACTION [--json]
companion transeuropa check-data [DATA.json] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from companion.cli import command_group
from companion.commands.score import print_report, read_json_file


def register(sub: Any) -> None:
    tsub = command_group(sub, "transeuropa", "Trans Europa: round scoring, moves, lattice data")

    s = tsub.add_parser("score", help="penalties of a round position (ROUND.json)")
    s.add_argument("round", help="the round as JSON ('-' reads standard input)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.add_argument(
        "--alt-costs", action="store_true", help="use the other source's cost for disputed links"
    )
    s.set_defaults(func=run_score)

    m = tsub.add_parser("move", help="is this action legal in the round? prints the new round")
    m.add_argument("round", help="the round as JSON ('-' reads standard input)")
    m.add_argument("action", nargs="+", help="e.g. 'red track 0906-1005' or 'red end'")
    m.add_argument("--json", action="store_true", help="print the verdict and round as JSON")
    m.set_defaults(func=run_move)

    c = tsub.add_parser("check-data", help="report inconsistencies of the lattice data file")
    c.add_argument("data", nargs="?", help="a data file (default: the shipped one)")
    c.add_argument("--json", action="store_true", help="print the issues as JSON")
    c.set_defaults(func=run_check_data)


def _lattice(alt_costs: bool = False) -> Any:
    from companion.cli import CommandError
    from companion.core.errors import RulesError
    from companion.transeuropa import trans_europa

    try:
        return trans_europa(alt_costs)
    except RulesError as exc:
        raise CommandError(f"the shipped Trans Europa data is broken: {exc}") from None


def _scores(data: Any, colors: list[str]) -> dict[str, int] | None:
    from companion.cli import CommandError

    raw = data.get("scores") if isinstance(data, Mapping) else None
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise CommandError("'scores' must map each player's colour to their points")
    scores: dict[str, int] = {}
    for k, v in raw.items():
        if not isinstance(v, int) or isinstance(v, bool):
            raise CommandError(f"the score of {k} must be a whole number")
        scores[str(k).lower()] = v
    if sorted(scores) != sorted(colors):
        raise CommandError("'scores' must give exactly one score for every player's colour")
    return scores


def run_score(args: argparse.Namespace) -> int:
    from companion.cli import CommandError
    from companion.core.errors import RulesError
    from companion.core.scoring import leaders
    from companion.transeuropa import Round

    lattice = _lattice(args.alt_costs)
    data = read_json_file(args.round)
    try:
        rnd = Round.from_json(lattice, data)
        result = rnd.score()
    except RulesError as exc:
        raise CommandError(f"impossible round: {exc}") from None
    out = result.to_json()
    scores = _scores(data, [p.color for p in rnd.players])
    if scores is not None:
        cut = [p.color for p in result.players if p.penalty is None]
        if cut:
            raise CommandError(
                f"{cut[0]}'s cities cannot be joined at all (coloured tracks cut one off)"
            )
        after = {p.color: scores[p.color] - (p.penalty or 0) for p in result.players}
        for pj in out["players"]:
            pj["score_before"] = scores[pj["color"]]
            pj["score_after"] = after[pj["color"]]
        game_over = result.over and min(after.values()) <= lattice.red_at_or_below
        out["game_over"] = game_over
        out["winners"] = leaders(after) if game_over else []
    return print_report(out, args.json, lambda: format_score(out))


def format_score(out: Mapping[str, Any]) -> str:
    with_scores = "game_over" in out
    cols = ["player", "cities", "penalty"] + (["score"] if with_scores else [])
    rows = []
    for p in out["players"]:
        pen = (
            "cut off" if p["penalty"] is None else ("done" if p["complete"] else f"-{p['penalty']}")
        )
        row = [
            f"{p['name']} ({p['color']})" if p["name"] != p["color"] else p["color"],
            " ".join(p["cities"]),
            pen,
        ]
        if with_scores:
            row.append(f"{p['score_before']} -> {p['score_after']}")
        rows.append(row)
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
    if out["round_over"]:
        lines.append(f"round over ({out['reason']})")
    else:
        lines.append("the round is still running: penalties if it ended now")
    if with_scores and out["game_over"]:
        lines.append(
            f"game over; winner{'s' if len(out['winners']) > 1 else ''}: "
            + ", ".join(out["winners"])
        )
    return "\n".join(lines)


def run_move(args: argparse.Namespace) -> int:
    from companion.cli import CommandError
    from companion.core.errors import IllegalActionError, RulesError
    from companion.transeuropa import Round, parse_action

    lattice = _lattice()
    data = read_json_file(args.round)
    try:
        rnd = Round.from_json(lattice, data)
        action = parse_action(" ".join(args.action))
    except RulesError as exc:
        raise CommandError(str(exc)) from None
    try:
        rnd.apply(action)
    except IllegalActionError as exc:
        if args.json:
            print(json.dumps({"legal": False, "rule": exc.rule, "reason": str(exc)}))
        else:
            print(f"illegal ({exc.rule}): {exc}")
        return 1
    except RulesError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps({"legal": True, "round": rnd.to_json()}, ensure_ascii=False))
    else:
        print(json.dumps(rnd.to_json(), indent=1, ensure_ascii=False))
    return 0


def run_check_data(args: argparse.Namespace) -> int:
    from companion.transeuropa.lattice import DATA_FILE, check_lattice_data, lattice_summary

    if args.data:
        data = read_json_file(args.data)
        name = args.data
    else:
        from companion.data import load_json

        data = load_json(DATA_FILE)
        name = f"companion/data/{DATA_FILE}"
    issues = check_lattice_data(data)
    errors = [i for i in issues if i.level == "error"]
    summary = lattice_summary(data) if isinstance(data, Mapping) else {}
    if args.json:
        print(
            json.dumps(
                {
                    "file": name,
                    "ok": not errors,
                    "counts": summary,
                    "issues": [i.to_json() for i in issues],
                },
                indent=1,
            )
        )
    else:
        counts = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in summary.items())
        print(f"{name}: {counts}")
        for i in issues:
            print(f"{i.level}: [{i.code}] {i.message}")
        print(f"{len(errors)} error(s), {len(issues) - len(errors)} note(s)")
    return 1 if errors else 0
