"""Benchmark results: the one source of the project's measured figures.

A benchmark run with ``--write`` replaces its own file ``benchmarks/results/<script>.md`` with
the rows it measured (one file per benchmark, so that benchmarks written in parallel never touch
the same file). Each row carries an id (the anchor the README and docs link to), what was
measured, the figure, and the run's date, commit, machine, load average (at start and end, with
the process's niceness) and library versions. The scripts run as scripts, so import it as
``from results import Results``::

    res = Results("bench_rules", write=args.write)
    res.add("rules-score-median", "final scoring, dense states", f"median {ms:.1f} ms")
    res.save()

Without ``--write`` nothing is written; the rows are printed at the end either way.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS_DIR = HERE / "results"
WRITE_HELP = "write the figures into benchmarks/results/<script>.md (replacing its rows)"
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
LIBRARIES = ("numpy", "opencv-python-headless", "opencv-python", "flask", "waitress")
HEADER = "| id | what | figure | date (UTC) | commit | machine | load | libraries | run |"


def wants_write(argv: list[str]) -> bool:
    """Whether ``--write`` is among the arguments (for scripts without an argument parser)."""
    return "--write" in argv


def _git(*args: str) -> str:
    try:
        out = subprocess.run(
            ["git", *args], cwd=HERE, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def commit() -> str:
    """The short commit of the tree, ``+`` when tracked files differ from it (other than the
    results files, which the benchmarks run before this one may just have rewritten)."""
    head = _git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = _git(
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ":/",
        ":(top,exclude)benchmarks/results",
    )
    return head + ("+" if dirty else "")


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores"


def libraries() -> str:
    """Python and the versions of the libraries the figures depend on."""
    parts = [f"Python {platform.python_version()}"]
    for name in LIBRARIES:
        try:
            parts.append(
                f"{name.replace('-python-headless', '').replace('-python', '')} "
                f"{metadata.version(name)}"
            )
        except metadata.PackageNotFoundError:
            continue
    return ", ".join(parts)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


@dataclass
class Results:
    """The rows of one benchmark run; ``save`` writes them when ``write`` is set."""

    bench: str
    write: bool = False
    mode: str | None = None  # how it was run; default: the script's arguments but --write
    libraries: str | None = None  # when the figures come from another interpreter: its versions
    rows: list[tuple[str, str, str]] = field(default_factory=list)
    load_start: float = field(default_factory=lambda: os.getloadavg()[0])
    started: _dt.datetime = field(default_factory=lambda: _dt.datetime.now(_dt.UTC))

    def add(self, row_id: str, what: str, figure: str) -> None:
        if not ID_RE.match(row_id):
            raise ValueError(f"row id {row_id!r}: lower-case letters, digits and dashes")
        if any(r[0] == row_id for r in self.rows):
            raise ValueError(f"row id {row_id!r} given twice")
        self.rows.append((row_id, what, figure))

    def run(self) -> str:
        if self.mode is None:
            self.mode = " ".join(a for a in sys.argv[1:] if a != "--write")
        return self.mode or "defaults"

    def render(self) -> str:
        load = f"{self.load_start:.1f} → {os.getloadavg()[0]:.1f}, nice {os.nice(0)}"
        context = [
            self.started.strftime("%Y-%m-%d %H:%M"),
            commit(),
            machine(),
            load,
            self.libraries or libraries(),
            self.run(),
        ]
        lines = [
            f"# {self.bench}",
            "",
            f"Written by `python benchmarks/{self.bench}.py --write`; do not edit by hand: run it"
            " again. The README and `docs/figures.md` link to these rows by id.",
            "",
            HEADER,
            "|" + "---|" * HEADER.count(" | ") + "---|",
        ]
        for row_id, what, figure in self.rows:
            cells = [f'<a id="{row_id}"></a>{row_id}', _cell(what), _cell(figure)]
            cells += [_cell(c) for c in context]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"

    def save(self) -> Path | None:
        """Print the rows; with ``write``, replace the benchmark's results file by them."""
        print(f"\nresults ({len(self.rows)} rows):")
        for row_id, _what, figure in self.rows:
            print(f"  {row_id}: {figure}")
        if not self.write:
            return None
        if not self.rows:
            print("nothing measured: results file left as it was", file=sys.stderr)
            return None
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        path = RESULTS_DIR / f"{self.bench}.md"
        tmp = path.with_suffix(".md.tmp")
        tmp.write_text(self.render(), encoding="utf-8")
        tmp.replace(path)
        print(f"written: {path}")
        return path


def read_rows(path: Path) -> dict[str, str]:
    """Row id -> figure of a results file (the test of the README's figures reads them so)."""
    rows: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r'^\| <a id="([a-z0-9-]+)"></a>[a-z0-9-]+ \| (.*?) \| (.*?) \| ', line)
        if m:
            rows[m.group(1)] = m.group(3).replace("\\|", "|")
    return rows


# A README figure row: | what | figure | [id](benchmarks/results/<script>.md#id) |
README_ROW = re.compile(
    r"^\| (?P<what>.*?) \| (?P<figure>.*?) \| "
    r"\[(?P<label>[a-z0-9-]+)\]"
    r"\((?P<file>benchmarks/results/[a-z0-9_]+\.md)#(?P<id>[a-z0-9-]+)\) \|$"
)


def refresh_readme(readme: Path) -> list[str]:
    """Copy each linked row's figure into the README's figures table; the rows changed."""
    root = readme.parent
    lines = readme.read_text(encoding="utf-8").splitlines()
    changed = []
    for i, line in enumerate(lines):
        m = README_ROW.match(line)
        if not m:
            continue
        rows = read_rows(root / m["file"])
        if m["id"] not in rows:
            raise SystemExit(f"{readme.name}: no row {m['id']} in {m['file']}")
        figure = rows[m["id"]].replace("|", "\\|")
        if figure != m["figure"]:
            lines[i] = line.replace(f"| {m['figure']} |", f"| {figure} |", 1)
            changed.append(m["id"])
    readme.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed


if __name__ == "__main__":
    # python benchmarks/results.py --readme: the README's figures from the results files
    if sys.argv[1:] != ["--readme"]:
        raise SystemExit("usage: python benchmarks/results.py --readme")
    done = refresh_readme(HERE.parent / "README.md")
    print(f"README.md: {len(done)} figures refreshed" + (f" ({', '.join(done)})" if done else ""))
