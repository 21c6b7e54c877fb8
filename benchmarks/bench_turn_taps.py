"""Taps per turn and the time from a turn's last tap to every screen, on 360 x 740 phones.

Run: ``.venv/bin/python benchmarks/bench_turn_taps.py [--rounds N] [--quick] [--write]`` (needs
Debian's chromium at /usr/bin/chromium and the playwright package; never ``playwright install``).

The real app (service, SQLite log in a temporary directory, Flask app under waitress on
127.0.0.1) and four pages in Japanese at 360 x 740 (three paired phones, the host). Each kind of
turn is played from the acting phone the way a player taps it - a coloured claim, a grey claim, a
station, a tunnel with a surcharge, a tunnel without, cards drawn - and the bench prints the taps
it took (from the first tap until the turn has passed to the next player by itself) and the time
from the last tap until every one of the four screens shows the next player's turn (median and
worst over the rounds). The figures are the browser's and the server's on this machine.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results import WRITE_HELP, Results  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
TOKEN = "bench-host-token-" + "z" * 26
PLAYERS = [
    {"name": "Aki", "color": "blue"},
    {"name": "Ben", "color": "red"},
    {"name": "Chie", "color": "green"},
]
KEEP = {
    "blue": ["paris-wien", "frankfurt-kobenhavn"],
    "red": ["berlin-roma", "brindisi-zurich"],
    "green": ["brest-marseille", "essen-kyiv"],
}
# (kind, who, taps as selectors; a route's middle space is its tap)
ROUND = [
    ("coloured claim", "blue", ["route:berlin-wien", "#claim-go"]),
    (
        "grey claim",
        "red",
        ["route:marseille-paris", ".sheet .cards button[data-card=red]", "#claim-go"],
    ),
    ("station", "green", ["city:roma", ".sheet .cards button[data-card=pink]", "#station-go"]),
    (
        "tunnel, surcharge 2",
        "blue",
        ["route:munchen-zurich"]
        + [f"#reveal-now .cards button[data-card={c}]" for c in ("yellow", "locomotive", "blue")]
        + ["#tunnel-pay"],
    ),
    ("cards drawn", "red", ["#drew"]),
    (
        "tunnel, no surcharge",
        "green",
        ["route:marseille-zurich"]
        + [f"#reveal-now .cards button[data-card={c}]" for c in ("red", "blue", "green")],
    ),
]
NEXT = {"blue": "red", "red": "green", "green": "blue"}


def selector(tap: str) -> str:
    if tap.startswith("route:"):
        return f"g.route[data-route='{tap[6:]}'] .space >> nth=1"
    if tap.startswith("city:"):
        return f"g.city[data-city='{tap[5:]}'] .dot"
    return tap


def play(rounds: int) -> dict[str, list[tuple[int, float]]]:
    import json
    import urllib.request

    from playwright.sync_api import sync_playwright
    from waitress.server import create_server

    from companion.service import Service
    from companion.store import EventStore
    from companion.webapp import create_app

    out: dict[str, list[tuple[int, float]]] = {kind: [] for kind, _, _ in ROUND}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        store = EventStore(Path(tmp))
        service = Service(store).start()
        app = create_app(service, {"HOST_TOKEN": TOKEN, "SSE_KEEPALIVE": 1.0})
        server: Any = create_server(app, host="127.0.0.1", port=0, threads=12)
        url = f"http://127.0.0.1:{server.effective_port}"
        app.config["PUBLIC_URL"] = url
        closing = threading.Event()

        def run() -> None:
            try:
                server.run()
            except (OSError, ValueError):
                if not closing.is_set():  # only waitress tripping over its closed sockets
                    raise

        thread = threading.Thread(target=run, daemon=True)
        thread.start()

        def api(path: str, body: Any) -> Any:
            req = urllib.request.Request(
                url + path,
                method="POST",
                data=json.dumps(body).encode(),
                headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
            )
            with urllib.request.urlopen(req, timeout=10) as res:
                return json.loads(res.read())

        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            for _ in range(rounds):
                # a fresh game each round: the same routes are free again
                api("/api/actions", {"type": "new_game", "players": PLAYERS, "replace": True})
                for color, tickets in KEEP.items():
                    body = {"type": "keep_tickets", "player": color, "tickets": tickets}
                    api("/api/actions", body)
                pages: dict[str, Any] = {}
                contexts = []
                for color in [*KEEP, "host"]:
                    ctx = browser.new_context(
                        viewport={"width": 360, "height": 740},
                        locale="ja-JP",
                        is_mobile=True,
                        has_touch=True,
                    )
                    contexts.append(ctx)
                    page = ctx.new_page()
                    link = (
                        f"{url}/host/login?token={TOKEN}"
                        if color == "host"
                        else api(f"/api/players/{color}/pair", {})["url"]
                    )
                    page.goto(link)
                    page.wait_for_selector("body[data-ready='1']")
                    pages[color] = page
                for kind, who, taps in ROUND:
                    ph = pages[who]
                    for page in pages.values():
                        page.wait_for_selector(f"#whose-turn[data-color={who}]")
                    for tap in taps:
                        ph.locator(selector(tap)).first.tap()
                    start = time.perf_counter()
                    for page in pages.values():
                        page.wait_for_selector(f"#whose-turn[data-color={NEXT[who]}]")
                    out[kind].append((len(taps), time.perf_counter() - start))
                for ctx in contexts:
                    ctx.close()
        finally:
            browser.close()
            closing.set()
            service.stop()
            server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
            server.close()
            thread.join(5)
            store.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one round")
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args(argv)
    if args.quick:
        args.rounds = 1
    if not Path(CHROMIUM).exists():
        print(f"chromium is not installed at {CHROMIUM}", file=sys.stderr)
        return 2
    results = play(args.rounds)
    print(f"Taps per turn, 360 x 740, Japanese, {args.rounds} rounds; seconds from the last tap")
    print("until all 4 screens (3 phones, host) show the next player's turn")
    print()
    print(f"{'turn':22s} {'taps':>4s} {'median s':>9s} {'worst s':>8s}")
    res = Results("bench_turn_taps", write=args.write)
    for kind, rows in results.items():
        taps = {t for t, _ in rows}
        times = [s for _, s in rows]
        tap = str(taps.pop()) if len(taps) == 1 else "/".join(map(str, sorted(taps)))
        print(f"{kind:22s} {tap:>4s} {statistics.median(times):9.2f} {max(times):8.2f}")
        res.add(
            "turn-taps-" + re.sub(r"[^a-z0-9]+", "-", kind).strip("-"),
            f"{kind}: taps on the acting phone (360 x 740, Japanese) until the turn passes by"
            f" itself; seconds from the last tap until all 4 screens show the next player's turn"
            f" ({args.rounds} rounds)",
            f"{tap} taps; median {statistics.median(times):.2f} s, worst {max(times):.2f} s",
        )
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
