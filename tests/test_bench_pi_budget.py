"""benchmarks/bench_pi_budget.py: its p90 is the other benchmarks' nearest rank, and the file
works both as a script (beside ``results`` and ``timing``) and as a module of ``benchmarks``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks import bench_pi_budget
from benchmarks.timing import percentile

SCRIPT = Path(bench_pi_budget.__file__)


def test_p90_is_one_of_the_times_by_nearest_rank() -> None:
    times = [5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0, 4.0, 6.0, 30.0]
    t = bench_pi_budget.Timing("x", times)
    assert t.p90 == percentile(times, 90) == 9.0  # np.percentile would blend 9 and 30: 11.1
    assert t.p90 in times


def test_runs_as_a_script_from_anywhere(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "--frames" in done.stdout and "--write" in done.stdout
