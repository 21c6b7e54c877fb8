"""Rate-limit benchmark: the host's action latency while another address floods the server.

    python benchmarks/bench_rate_limits.py [--quick] [--actions N] [--flooders N] [--write]

Starts `companion serve` on 127.0.0.1 (a free port, a temporary state directory, the limits of
companion/data/rate_limits.json), starts a two-player game, and times the host's actions
(`set_payment_mode`, Bearer token, one connection per action, from 127.0.0.1):

1. quiet: nothing else runs;
2. flood: --flooders threads on 127.0.0.2 (a process of its own at nice 19: at the table the
   flooder is another device) send, as fast as the server answers, refused actions (blue's
   phone ending a turn that is not its own: 409) and token guesses (403) until they get 429,
   then go on against the 429s.

Prints p50/p95/max of the host's actions in each phase, the flood's requests per second and how
its answers split (409/403 before the limit, 429 after); the server logs one line per burst.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.results import WRITE_HELP, Results  # noqa: E402
from benchmarks.timing import spread  # noqa: E402
from tests.serving import (  # noqa: E402
    exchange,
    start_served,
)

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
TICKETS = {"red": ["paris-wien", "brest-marseille"], "blue": ["budapest-zurich", "angora-athina"]}
FLOOD = "127.0.0.2"


class Server:
    def __init__(self, state_dir: Path) -> None:
        self.proc, self.port, self.token = start_served(state_dir, subprocess.PIPE, REPO)
        self.host = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}

    def request(
        self, method: str, path: str, body: Any, headers: dict[str, str], source: str | None = None
    ) -> tuple[int, Any]:
        conn = http.client.HTTPConnection(
            "127.0.0.1",
            self.port,
            timeout=30,
            source_address=None if source is None else (source, 0),
        )
        data = None if body is None else json.dumps(body).encode()
        return exchange(conn, method, path, data, headers)

    def stop(self) -> str:
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err or ""


def host_actions(server: Server, n: int) -> list[float]:
    out = []
    for i in range(n):
        action = {"type": "set_payment_mode", "payment_mode": "strict" if i % 2 else "lenient"}
        t0 = time.perf_counter()
        status, _ = server.request("POST", "/api/actions", action, server.host)
        out.append((time.perf_counter() - t0) * 1000)
        assert status == 200, status
    return out


def flood_process(spec: str) -> int:
    """The flood (its own process): until stdin closes, then one line of what it got. It runs
    at the lowest priority (nice 19): at the table the flooder is another device, whose own
    work costs the box nothing; here the client's CPU is not to be taken from the server."""
    os.nice(19)
    port_text, threads_text, blue_auth = spec.split(",", 2)
    server = Server.__new__(Server)
    server.port = int(port_text)
    blue = {"Authorization": blue_auth, "Content-Type": "application/json"}
    stop = threading.Event()
    answers: collections.Counter[int] = collections.Counter()
    lock = threading.Lock()

    def flood(k: int) -> None:
        i = 0
        while not stop.is_set():
            i += 1
            if i % 2:
                bad = {"type": "end_turn", "player": "blue"}
                status, _ = server.request("POST", "/api/actions", bad, blue, FLOOD)
            else:
                guess = {"Authorization": f"Bearer guess-{k}-{i:08d}-0123456789"}
                status, _ = server.request("GET", "/api/players/red/tickets", None, guess, FLOOD)
            with lock:
                answers[status] += 1

    threads = [
        threading.Thread(target=flood, args=(k,), daemon=True) for k in range(int(threads_text))
    ]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    print("flooding", flush=True)
    sys.stdin.read()
    stop.set()
    for t in threads:
        t.join(30)
    secs = time.perf_counter() - t0
    total = sum(answers.values())
    split = ", ".join(f"{k}: {v}" for k, v in sorted(answers.items()))
    print(
        f"flood from {FLOOD} (own process): {len(threads)} threads, {total} requests in "
        f"{secs:.1f} s ({total / secs:.0f}/s); answers {split}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flood", help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="fewer actions")
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--flooders", type=int, default=4)
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args(argv)
    if args.flood:
        return flood_process(args.flood)
    n = 60 if args.quick else args.actions
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "state")
        try:
            game = {"type": "new_game", "players": PLAYERS}
            assert server.request("POST", "/api/actions", game, server.host)[0] == 200
            for color, tickets in TICKETS.items():
                keep = {"type": "keep_tickets", "player": color, "tickets": tickets}
                assert server.request("POST", "/api/actions", keep, server.host)[0] == 200
            _, out = server.request("POST", "/api/players/blue/pair", None, server.host)
            blue = {
                "Authorization": f"Bearer {out['url'].rsplit('/', 1)[1]}",
                "Content-Type": "application/json",
            }
            host_actions(server, 10)  # warm up
            quiet = host_actions(server, n)
            print(f"host actions, quiet:              {spread(quiet)} ({n} actions)")
            # the flood runs in its own process: its threads do not hold this one's interpreter
            flood = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--flood",
                    f"{server.port},{args.flooders},{blue['Authorization']}",
                ],
                stdout=subprocess.PIPE,
                stdin=subprocess.PIPE,
                text=True,
            )
            assert flood.stdout is not None and flood.stdin is not None
            assert flood.stdout.readline().strip() == "flooding"
            time.sleep(0.5)
            flooded = host_actions(server, n)
            flood.stdin.close()  # the flood stops
            report = flood.stdout.read()
            flood.wait(30)
            print(f"host actions, during the flood:   {spread(flooded)} ({n} actions)")
            print(report.strip())
        finally:
            err = server.stop()
        bursts = [line for line in err.splitlines() if "rate limit:" in line]
        print(f"server log: {len(bursts)} rate-limit line(s) for the flood")
    res = Results("bench_rate_limits", write=args.write)
    res.add(
        "rate-limits-host-quiet",
        f"the host's actions (`set_payment_mode`, {n} requests) with nothing else running",
        spread(quiet),
    )
    res.add(
        "rate-limits-host-flood",
        f"the host's actions ({n} requests) while another address floods the server with refused"
        f" actions and token guesses ({args.flooders} threads, a process of its own at nice 19);"
        " target p95 < 20 ms",
        spread(flooded),
    )
    flood_line = report.strip().split(": ", 1)[-1]
    res.add(
        "rate-limits-flood",
        "the flood: requests per second and how its answers split (409 / 403 before the limit,"
        " 429 after); rate-limit lines in the server's log",
        f"{flood_line}; {len(bursts)} log line(s)",
    )
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
