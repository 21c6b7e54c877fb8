"""Tap targets as a finger meets them (issue 23: hit areas of at least 44 px everywhere).

Every visible interactive element in screen px: buttons, links (in running text too), selects,
summaries, text fields, sliders, and checkboxes, radios and file pickers by the label that
carries them (a tap on the label is a tap on the box). On the board, each city's and each route
space's hit shape at the scale it is drawn (the phone's first zoom on a phone), not the 10 px dot.
"""

from __future__ import annotations

from typing import Any

MIN_PX = 44.0
SMALLEST: dict[str, float] = {}  # where -> the smallest target measured there (for a report)

MEASURE = """() => {
  const out = [];
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
  };
  const name = (e) => {
    const words = (e.textContent || "").trim().slice(0, 16);
    return `${e.tagName.toLowerCase()}#${e.id}.${e.className} ${words}`;
  };
  const boxed = new Set(["checkbox", "radio", "file"]);
  for (const e of document.querySelectorAll("button, a[href], select, summary, textarea, input")) {
    if (e.closest("svg") || e.type === "hidden") continue;
    let target = e;
    if (e.tagName === "INPUT" && boxed.has(e.type)) {
      target = (e.labels && e.labels[0]) || e;  // the label carries the box
    }
    if (!shown(target)) continue;
    const r = target.getBoundingClientRect();
    out.push([name(target), r.width, r.height]);
  }
  const board = document.querySelector("svg.board");
  if (board && shown(board)) {
    const scale = board.getBoundingClientRect().width / board.viewBox.baseVal.width;
    for (const c of board.querySelectorAll(".hits circle.hit")) {
      const d = 2 * c.r.baseVal.value * scale;
      out.push([`city ${c.dataset.city}`, d, d]);
    }
    for (const h of board.querySelectorAll(".hits rect.hit")) {
      const [w, h2] = [h.width.baseVal.value, h.height.baseVal.value];
      out.push([`route ${h.dataset.route}`, w * scale, h2 * scale]);
    }
  }
  return out;
}"""


def measure(page: Any) -> list[tuple[str, float, float]]:
    return [(str(n), float(w), float(h)) for n, w, h in page.evaluate(MEASURE)]


def too_small(page: Any) -> list[str]:
    return [f"{n} {w:.0f}x{h:.0f}" for n, w, h in measure(page) if min(w, h) < MIN_PX - 0.5]


def smallest(page: Any) -> float:
    sizes = [min(w, h) for _, w, h in measure(page)]
    return min(sizes) if sizes else float("inf")
