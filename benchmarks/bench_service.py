"""Service benchmark: observation -> SSE latency through a real waitress server, and the peak
memory of `companion serve --demo` over a full demo game.

    .venv/bin/python benchmarks/bench_service.py [--n 200] [--demo-delay 0] [--realtime 60]
        [--write]

1. Starts `companion serve` on 127.0.0.1 (a free port, a temporary state dir), subscribes to
   /api/events with a plain HTTP client, and times, from just before the POST to the moment the
   event is read from the stream:
   * a card tap (POST /api/observations card_tapped -> `event: pending`; no disk write),
   * an end-turn button (POST /api/observations button -> a state event; one synced log write).
2. Starts `companion serve --demo` (the simulated table: rendered 960x540 camera frames read by
   the live watcher and the pixel reader, a simulated card reader on a pty) with two SSE clients
   attached and reads the process's peak resident memory (VmHWM in /proc/<pid>/status) and CPU
   time once the demo game is finished (--demo-delay 0: the camera runs faster than real time),
   with how the claims reached the game (actor camera, or the host's fallback).
3. With --realtime S: the watchable demo (2 s per move, camera at 5 fps in real time) for S
   seconds: its CPU load and peak RSS.
"""

from __future__ import annotations

import argparse
import http.client
import json
import platform
import queue
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from results import WRITE_HELP, Results  # noqa: E402
from timing import percentile  # noqa: E402

from tests.serving import serve_cmd  # noqa: E402


def start_server(state_dir: Path, *extra: str) -> tuple[subprocess.Popen[str], str, str]:
    proc = subprocess.Popen(
        serve_cmd(state_dir, "--no-qr", *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=REPO,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    port = ""
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        m = re.search(r"serving on http://127\.0\.0\.1:(\d+)/", line)
        if m:
            port = m.group(1)
            break
    if not port:
        proc.kill()
        raise SystemExit("the server did not start")
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # drain
    token = (state_dir / "host-token").read_text().strip()
    return proc, port, token


def post(port: str, token: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
    c.request(
        "POST",
        path,
        json.dumps(body),
        {"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    r = c.getresponse()
    data = json.loads(r.read())
    c.close()
    if r.status != 200:
        raise RuntimeError(f"{path} {body}: {r.status} {data}")
    return data  # type: ignore[no-any-return]


def get_json(port: str, path: str) -> dict[str, Any]:
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
    c.request("GET", path)
    r = c.getresponse()
    data = json.loads(r.read())
    c.close()
    return data  # type: ignore[no-any-return]


def sse_listener(port: str, out: queue.Queue[tuple[float, str]]) -> http.client.HTTPConnection:
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
    c.request("GET", "/api/events")
    r = c.getresponse()

    def pump() -> None:
        event = "message"
        try:
            while True:
                line = r.fp.readline()
                if not line:
                    return
                text = line.decode().rstrip("\n")
                if text.startswith("event: "):
                    event = text[7:]
                elif text.startswith("data: "):
                    out.put((time.perf_counter(), event))
                elif text == "":
                    event = "message"
        except (OSError, ValueError):
            return

    threading.Thread(target=pump, daemon=True).start()
    return c


def wait_event(q: queue.Queue[tuple[float, str]], kind: str, timeout: float = 5.0) -> float:
    deadline = time.monotonic() + timeout
    while True:
        t, ev = q.get(timeout=max(0.01, deadline - time.monotonic()))
        if ev == kind:
            return t


def latency(res: Results, n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, token = start_server(Path(tmp))
        try:
            q: queue.Queue[tuple[float, str]] = queue.Queue()
            conn = sse_listener(port, q)
            wait_event(q, "message")
            post(
                port,
                token,
                "/api/actions",
                {
                    "type": "new_game",
                    "players": [
                        {"name": "A", "color": "red"},
                        {"name": "B", "color": "blue"},
                        {"name": "C", "color": "green"},
                    ],
                    "tickets_tracked": False,  # the button ends turns; no tickets are entered
                },
            )
            wait_event(q, "message")
            taps: list[float] = []
            ends: list[float] = []
            for i in range(n):
                t0 = time.perf_counter()
                post(
                    port,
                    token,
                    "/api/observations",
                    {"kind": "card_tapped", "card": "red", "uid": f"u{i}"},
                )
                taps.append(wait_event(q, "pending") - t0)
                t0 = time.perf_counter()
                post(port, token, "/api/observations", {"kind": "button", "name": "end_turn"})
                ends.append(wait_event(q, "message") - t0)
            conn.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    for row_id, name, vals in (
        ("service-tap", "card tap -> pending event", taps),
        ("service-end-turn", "end-turn button -> state event (synced write)", ends),
    ):
        ms = [v * 1000 for v in vals]
        print(
            f"{name:48s} n={len(ms)}  median {statistics.median(ms):6.2f} ms  "
            f"p95 {percentile(ms, 95):6.2f} ms  max {max(ms):6.2f} ms"
        )
        res.add(
            row_id,
            f"service, {name} at a subscribed client (real waitress on 127.0.0.1), n={len(ms)}",
            f"median {statistics.median(ms):.1f} ms, p95 {percentile(ms, 95):.1f} ms",
        )


def vm_hwm(pid: int) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    m = re.search(r"VmHWM:\s+(\d+) kB", text)
    return int(m.group(1)) if m else 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (and its reaped children) from /proc/<pid>/stat."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(v) for v in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def claim_paths(port: str, game_id: str) -> str:
    from companion.data import europe_map

    m = europe_map()
    events = get_json(port, f"/api/games/{game_id}/events")["events"]
    seen: dict[str, int] = {}
    for e in events:
        a = e["action"]
        if a["type"] == "build_station" or (
            a["type"] == "claim" and not m.routes[a["route"]].tunnel
        ):
            seen[e["actor"]] = seen.get(e["actor"], 0) + 1
    return ", ".join(f"{n} by {who}" for who, n in sorted(seen.items()))


def demo_memory(res: Results, delay: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, _ = start_server(Path(tmp), "--demo", "--demo-delay", str(delay))
        try:
            qs = []
            for _ in range(2):
                q: queue.Queue[tuple[float, str]] = queue.Queue()
                sse_listener(port, q)
                qs.append(q)
            t0 = time.monotonic()
            peak = 0
            while time.monotonic() - t0 < 900:
                peak = max(peak, vm_hwm(proc.pid))
                st = get_json(port, "/api/state")
                if st["phase"] == "finished":
                    break
                time.sleep(0.2)
            else:
                raise SystemExit("the demo did not finish within 15 minutes")
            peak = max(peak, vm_hwm(proc.pid))
            cpu = cpu_seconds(proc.pid)
            events = sum(q.qsize() for q in qs) // 2
            print(
                f"serve --demo (demo delay {delay}s): full game in {time.monotonic() - t0:.1f} s, "
                f"CPU {cpu:.1f} s, last seq {st['seq']}, ~{events} SSE messages per client, "
                f"peak RSS (VmHWM) {peak / 1024:.1f} MB (target <= 200 MB)"
            )
            print(f"  claims and stations: {claim_paths(port, st['game_id'])}")
            res.add(
                "service-demo-memory",
                "service, peak memory of `serve --demo` over a full 4-player game (camera, vision,"
                " pty reader, 2 SSE clients)",
                f"{peak / 1024:.0f} MB (target <= 200 MB)",
            )
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def demo_realtime(res: Results, window: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, _ = start_server(Path(tmp), "--demo")
        try:
            q: queue.Queue[tuple[float, str]] = queue.Queue()
            sse_listener(port, q)
            time.sleep(3.0)  # imports and the first frames
            c0, t0 = cpu_seconds(proc.pid), time.monotonic()
            peak = 0
            while time.monotonic() - t0 < window:
                peak = max(peak, vm_hwm(proc.pid))
                time.sleep(0.5)
            cpu = cpu_seconds(proc.pid) - c0
            took = time.monotonic() - t0
            st = get_json(port, "/api/state")
            claimed = sum(len(p["routes"]) + len(p["stations"]) for p in st["players"])
            print(
                f"serve --demo (watchable, 2 s per move) over {took:.0f} s: "
                f"CPU {100 * cpu / took:.0f} % of one core, "
                f"peak RSS {max(peak, vm_hwm(proc.pid)) / 1024:.1f} MB, "
                f"turn {st['turn']}, {claimed} claims and stations on the board"
            )
            res.add(
                "service-demo-realtime",
                f"service, the watchable demo (2 s per move, camera at 5 fps) over {took:.0f} s",
                f"CPU {100 * cpu / took:.0f} % of one core, peak"
                f" {max(peak, vm_hwm(proc.pid)) / 1024:.0f} MB",
            )
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=200, help="latency samples of each kind")
    ap.add_argument(
        "--demo-delay", type=float, default=0.0, help="seconds between demo turns (0: fast)"
    )
    ap.add_argument(
        "--realtime", type=float, default=0.0, help="also watch the real-time demo for S seconds"
    )
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args()
    res = Results("bench_service", write=args.write)
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} "
        f"python {platform.python_version()}"
    )
    latency(res, args.n)
    demo_memory(res, args.demo_delay)
    if args.realtime > 0:
        demo_realtime(res, args.realtime)
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
