// Where a tap on the board lands. Every city and route has a hit area of at least TARGET_PX
// screen pixels across at the map's current scale (the drawn dot is 10 px at a phone's first
// zoom, a route's space 12 px wide); where hit areas overlap, the tap goes to the nearest drawn
// thing: the city whose dot, or the route whose space, is closest to the finger.

export const TARGET_PX = 46; // a little over the 44 px asked for, so rounding never goes below
const MAX_UNITS = 80; // at the whole board on a phone a tap zooms in first: no need to grow on

// The hit sizes in map units for a scale of `scale` screen pixels per map unit.
export function hitSizes(map, scale) {
  const [sw, sh] = map.space;
  const half = Math.min(MAX_UNITS, TARGET_PX / 2 / Math.max(scale, 1e-6));
  return {
    cityR: Math.max(20, half),
    spaceW: Math.max(sw + 6, 2 * half),
    spaceH: Math.max(sh * 2.2, 2 * half),
  };
}

// Distance from (x, y) to a train space's drawn box, in map units (0 inside), and whether the
// point is inside its hit box.
function toSpace(map, s, x, y, size) {
  const [sw, sh] = map.space;
  const a = (-s.angle * Math.PI) / 180;
  const dx = x - s.x;
  const dy = y - s.y;
  const u = Math.abs(dx * Math.cos(a) - dy * Math.sin(a));
  const v = Math.abs(dx * Math.sin(a) + dy * Math.cos(a));
  const hit = u <= size.spaceW / 2 && v <= size.spaceH / 2;
  const ou = Math.max(0, u - (sw / 2 - 1.5));
  const ov = Math.max(0, v - sh / 2);
  return { hit, d: Math.hypot(ou, ov) };
}

// The city or route a tap at map point (x, y) means: {city} or {route} or null.
export function resolveTap(map, x, y, scale, dotR = 9) {
  const size = hitSizes(map, scale);
  let best = null;
  for (const c of Object.values(map.cities)) {
    const d = Math.hypot(x - c.x, y - c.y);
    if (d <= size.cityR && (!best || d - dotR < best.d)) best = { city: c.id, d: d - dotR };
  }
  for (const r of Object.values(map.routes)) {
    for (const s of r.spaces) {
      const t = toSpace(map, s, x, y, size);
      if (t.hit && (!best || t.d < best.d)) best = { route: r.id, d: t.d };
    }
  }
  return best;
}
