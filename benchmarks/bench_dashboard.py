"""Page weight of the phone dashboard: the bytes a phone fetches on its first load.

Run: ``.venv/bin/python benchmarks/bench_dashboard.py [--write]``

The real app (service + Flask, event log in a temporary directory) is driven through Flask's test
client, with a 3-player game 16 moves in so that ``/api/state`` is realistic. For each page
(table view ``/``, host ``/host``, paired phone ``/me``) it follows what the browser loads: the
HTML, its stylesheet and module scripts, every static ``import`` of those modules (recursively),
the map (``/static/map.json``), one language file, ``/api/state`` (the first SSE event carries
the same state again), the game's event list (the chart's history) and, on a paired phone, its
tickets. Sizes are raw and gzip'd (level 6, as a reverse proxy would send them;
waitress itself does not compress). Nothing here is timed.
"""

from __future__ import annotations

import gzip
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results import Results, wants_write  # noqa: E402

TOKEN = "bench-host-token-" + "y" * 26
IMPORT = re.compile(r"""(?:^|\n)\s*import\s[^;]*?from\s+["'](\./[^"']+)["']""")
LINKS = re.compile(r"""(?:href|src)="(/static/[^"]+)\"""")


def seed_moves() -> list[dict[str, Any]]:
    """A 3-player game, first tickets kept and six routes claimed."""
    moves: list[dict[str, Any]] = [
        {
            "type": "new_game",
            "variant": "europe",
            "players": [
                {"name": "Aki", "color": "red"},
                {"name": "Ben", "color": "blue"},
                {"name": "Chiara", "color": "green"},
            ],
        },
        {"type": "keep_tickets", "player": "red", "tickets": ["paris-wien", "berlin-roma"]},
        {"type": "keep_tickets", "player": "blue", "tickets": ["kyiv-sochi", "essen-kyiv"]},
        {
            "type": "keep_tickets",
            "player": "green",
            "tickets": ["brest-marseille", "madrid-zurich"],
        },
    ]
    for player, route in (
        ("red", "frankfurt-paris-1"),
        ("blue", "kyiv-warszawa"),
        ("green", "brest-paris"),
        ("red", "frankfurt-munchen"),
        ("blue", "berlin-warszawa-1"),
        ("green", "marseille-paris"),
    ):
        moves.append({"type": "claim", "player": player, "route": route})
        moves.append({"type": "end_turn", "player": player})
    return moves


def crawl(client: Any, page: str, lang: str, headers: dict[str, str]) -> list[tuple[str, bytes]]:
    got: list[tuple[str, bytes]] = []
    seen: set[str] = set()

    def fetch(path: str) -> bytes:
        res = client.get(path, headers=headers)
        if res.status_code != 200:
            raise SystemExit(f"{path}: HTTP {res.status_code}")
        body: bytes = res.get_data()
        got.append((path, body))
        return body

    html = fetch(page).decode("utf-8")
    queue = LINKS.findall(html)
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        body = fetch(path)
        if path.endswith(".js"):
            base = path.rsplit("/", 1)[0]
            for rel in IMPORT.findall(body.decode("utf-8")):
                queue.append(f"{base}/{rel[2:]}")
    fetch("/static/map.json")
    fetch(f"/static/i18n/{lang}.json")
    import json

    state = json.loads(fetch("/api/state"))
    if state.get("game_id"):
        fetch(f"/api/games/{state['game_id']}/events")  # the chart's history (and the host's log)
    if page == "/me":
        color = re.search(r'data-color="(\w+)"', html)
        if color:
            fetch(f"/api/players/{color.group(1)}/tickets")
    return got


def main() -> int:
    from companion.service import Service
    from companion.store import EventStore
    from companion.webapp import create_app

    results = Results("bench_dashboard", write=wants_write(sys.argv))
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp))
        service = Service(store).start()
        try:
            app = create_app(service, {"HOST_TOKEN": TOKEN})
            client = app.test_client()
            auth = {"Authorization": f"Bearer {TOKEN}"}
            for action in seed_moves():
                res = client.post("/api/actions", json=action, headers=auth)
                if res.status_code != 200:
                    raise SystemExit(f"seeding failed on {action}: {res.get_json()}")
            pair = client.post("/api/players/red/pair", json={}, headers=auth).get_json()
            token = pair["url"].rsplit("/", 1)[1]
            host = app.test_client()
            host.get(f"/host/login?token={TOKEN}")
            phone = app.test_client()
            phone.get(f"/pair/{token}")
            print("Dashboard page weight, first load (bytes; gzip -6 in brackets)")
            print()
            for row_id, label, c, page, lang in (
                ("dashboard-table", "table view /", client, "/", "en"),
                ("dashboard-table-ja", "table view / (Japanese)", client, "/", "ja"),
                ("dashboard-host", "host /host", host, "/host", "en"),
                ("dashboard-phone", "paired phone /me", phone, "/me", "en"),
            ):
                files = crawl(c, page, lang, {})
                raw = sum(len(b) for _, b in files)
                gz = sum(len(gzip.compress(b, 6)) for _, b in files)
                kinds: dict[str, list[int]] = {}
                for path, body in files:
                    kind = (
                        "html"
                        if path == page
                        else "json"
                        if path.endswith(".json") or path.startswith("/api/")
                        else path.rsplit(".", 1)[-1]
                    )
                    k = kinds.setdefault(kind, [0, 0, 0])
                    k[0] += 1
                    k[1] += len(body)
                    k[2] += len(gzip.compress(body, 6))
                print(f"{label}: {len(files)} requests, {raw:,} B raw ({gz:,} B gzip'd)")
                results.add(
                    row_id,
                    f"dashboard, first load of {label} (HTML, CSS, JS, map, language, state)",
                    f"{raw / 1000:.0f} kB raw, {gz / 1000:.0f} kB gzip'd, {len(files)} requests",
                )
                for kind, (n, r, g) in sorted(kinds.items()):
                    print(f"    {kind:5s} {n:2d} files {r:8,} B  ({g:7,} B)")
            print()
            print("largest files:")
            files = crawl(host, "/host", "ja", {})
            for path, body in sorted(files, key=lambda f: -len(f[1]))[:6]:
                print(f"    {path:32s} {len(body):8,} B  ({len(gzip.compress(body, 6)):7,} B)")
        finally:
            service.stop()
            store.close()
    results.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
