"""Run every benchmark script in turn: ``python -m benchmarks [--quick] [--write] [NAME ...]``.

``--write``: each script that records its figures (``benchmarks/results.py``) replaces its rows in
``benchmarks/results/<script>.md``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    write = "--write" in argv
    names = [a for a in argv if not a.startswith("-")]
    scripts = sorted(HERE.glob("bench_*.py"))
    if names:
        scripts = [s for s in scripts if any(n in s.stem for n in names)]
    failed = 0
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        args = [sys.executable, str(script)]
        text = script.read_text(encoding="utf-8")
        shared = "quick_run(" in text  # boards.quick_run parses both flags for the script
        if quick and ("--quick" in text or shared):
            args.append("--quick")
        if write and ("--write" in text or shared):
            args.append("--write")
        failed += subprocess.run(args, check=False).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
