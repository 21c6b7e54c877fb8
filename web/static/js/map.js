// The board drawn as SVG from /static/map.json (built by web/build_map.py from the package's
// data): every train space as a rotated box, cities as dots with names, claimed routes in the
// owner's colour, tunnels with a dashed outline, ferry spaces marked with an SL dot.

import { hitSizes, resolveTap } from "./maphit.js";

const NS = "http://www.w3.org/2000/svg";

export const CARD_COLORS = {
  pink: "#e77fb3",
  blue: "#3674d1",
  orange: "#f0892a",
  white: "#f6f5ee",
  green: "#45a552",
  yellow: "#f1d031",
  black: "#3a3a3a",
  red: "#d8403a",
  grey: "#a5a5a5",
  locomotive: "#8c6bd6",
  bus: "conic-gradient(#d8403a, #f1d031, #45a552, #3674d1, #e77fb3, #d8403a)",
};

export const PLAYER_COLORS = {
  blue: "#1d4fb8",
  red: "#c8151f",
  green: "#137a2c",
  yellow: "#f2b600",
  black: "#111111",
  white: "#f4f4f4",
  purple: "#7b3fa8",
};

function svg(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Turn the compact arrays of map.json into objects.
export function unpackMap(raw) {
  const m = { size: raw.size, space: raw.space, cityR: raw.city, trains: raw.trains, stations: raw.stations };
  m.routePoints = raw.route_points;
  m.cities = {};
  for (const [id, name, x, y] of raw.cities) m.cities[id] = { id, name, x, y };
  m.routes = {};
  for (const [id, a, b, length, color, tunnel, locomotives, spaces] of raw.routes) {
    const A = m.cities[a];
    const B = m.cities[b];
    const dx = B.x - A.x;
    const dy = B.y - A.y;
    const ordered = spaces
      .map(([x, y, angle]) => ({ x, y, angle, t: (x - A.x) * dx + (y - A.y) * dy }))
      .sort((p, q) => p.t - q.t);
    m.routes[id] = {
      id,
      a,
      b,
      length,
      color,
      tunnel: !!tunnel,
      locomotives,
      ferry: locomotives > 0,
      spaces: ordered,
      points: raw.route_points[String(length)] || 0,
    };
  }
  for (const r of Object.values(m.routes)) {
    r.twin = Object.values(m.routes).find((o) => o !== r && ((o.a === r.a && o.b === r.b) || (o.a === r.b && o.b === r.a)))?.id || null;
  }
  m.tickets = {};
  for (const [id, a, b, points, long, decks] of raw.tickets) m.tickets[id] = { id, a, b, points, long: !!long, decks };
  m.variants = raw.variants.map(([id, name, decks]) => ({ id, name, decks }));
  return m;
}

export class BoardMap {
  constructor(container, map, i18n) {
    this.container = container;
    this.map = map;
    this.i18n = i18n;
    this.zoom = 1;
    this.onRoute = null;
    this.onCity = null;
    this.owners = {};
    this.stationOwners = {};
    this.build();
  }

  build() {
    const [W, H] = this.map.size;
    const [sw, sh] = this.map.space;
    this.container.textContent = "";
    const scroll = document.createElement("div");
    scroll.className = "map-scroll";
    this.scroll = scroll;
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "board", role: "img", preserveAspectRatio: "xMidYMid meet" });
    this.svg = root;
    svg("rect", { x: 0, y: 0, width: W, height: H, class: "sea", rx: 18 }, root);
    const hits = svg("g", { class: "hits" }, root);
    const routes = svg("g", { class: "routes" }, root);
    this.routeEls = {};
    this.hitEls = [];
    for (const r of Object.values(this.map.routes)) {
      const g = svg("g", { class: `route c-${r.color}${r.tunnel ? " tunnel" : ""}`, "data-route": r.id }, routes);
      for (const [i, s] of r.spaces.entries()) {
        const t = `translate(${s.x} ${s.y}) rotate(${s.angle})`;
        this.hitEls.push(svg("rect", { class: "hit", x: -sw / 2 - 3, y: -sh * 1.1, width: sw + 6, height: sh * 2.2, transform: t, "data-route": r.id }, hits));
        svg("rect", { class: "space", x: -sw / 2 + 1.5, y: -sh / 2, width: sw - 3, height: sh, rx: 4, transform: t, fill: CARD_COLORS[r.color] }, g);
        if (i < r.locomotives) svg("circle", { class: "loco", cx: s.x, cy: s.y, r: 5 }, g);
      }
      this.routeEls[r.id] = g;
    }
    this.hl = svg("g", { class: "highlights" }, root);
    const cities = svg("g", { class: "cities" }, root);
    this.cityEls = {};
    this.labelEls = {};
    for (const c of Object.values(this.map.cities)) {
      const g = svg("g", { class: "city", "data-city": c.id }, cities);
      // the hit area under every drawn thing (the drawn dot, space or label takes the tap first)
      this.hitEls.push(svg("circle", { class: "hit", cx: c.x, cy: c.y, r: 20, "data-city": c.id }, hits));
      svg("circle", { class: "dot", cx: c.x, cy: c.y, r: 9 }, g);
      this.labelEls[c.id] = svg("text", { x: c.x, y: c.y + 27, class: "label" }, g);
      this.cityEls[c.id] = g;
    }
    this.stationLayer = svg("g", { class: "stations" }, root);
    root.addEventListener("click", (e) => this.click(e));
    // where the finger came down: a phone's browser may move a tap's click towards some shape
    // it thinks is meant, and here the nearest city or route decides
    root.addEventListener("pointerdown", (e) => (this.down = { x: e.clientX, y: e.clientY, t: e.timeStamp }));
    // the hit areas follow the drawn size: zoom, a turned phone, a map shown after being hidden
    if (window.ResizeObserver) new ResizeObserver(() => this.fitHits()).observe(root);
    scroll.appendChild(root);

    const bar = document.createElement("div");
    bar.className = "map-bar";
    this.zoomOut = this.button(bar, "−", "map.zoom_out", () => this.setZoom(this.zoom > 2 ? 2 : 1));
    this.zoomIn = this.button(bar, "+", "map.zoom_in", () => this.setZoom(this.zoom < 2 ? 2.5 : 4));
    this.container.append(scroll, bar);
    this.relabel();
  }

  button(parent, text, label, fn) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "zoom";
    b.textContent = text;
    b.dataset.i18nLabel = label;
    b.setAttribute("aria-label", this.i18n.t(label));
    b.addEventListener("click", fn);
    parent.appendChild(b);
    return b;
  }

  relabel() {
    for (const c of Object.values(this.map.cities)) this.labelEls[c.id].textContent = this.i18n.city(c.id);
    for (const r of Object.values(this.map.routes)) this.routeEls[r.id].setAttribute("aria-label", this.describeRoute(r.id));
    const claimed = Object.keys(this.owners).length;
    this.svg.setAttribute("aria-label", this.i18n.t("map.label", { routes: Object.keys(this.map.routes).length, claimed }));
  }

  describeRoute(id) {
    const r = this.map.routes[id];
    const i = this.i18n;
    const parts = [i.route(r), i.t("route.length", { n: r.length }), r.color === "grey" ? i.t("route.grey") : i.card(r.color)];
    if (r.tunnel) parts.push(i.t("route.tunnel"));
    if (r.ferry) parts.push(i.t("route.ferry", { n: r.locomotives }));
    const owner = this.owners[id];
    parts.push(owner ? i.t("route.owner", { name: this.names?.[owner] || i.color(owner), color: i.color(owner) }) : this.isClosed(id) ? i.t("route.closed") : i.t("route.free"));
    return parts.join(" · ");
  }

  // A free route of a double whose twin is taken, in a game of 2 or 3 players: nobody may use
  // it (the rules' DOUBLES_CLOSED_UP_TO).
  isClosed(id) {
    const r = this.map.routes[id];
    if (!r || !r.twin || this.owners[id] || !this.owners[r.twin]) return false;
    return Object.keys(this.names || {}).length <= 3;
  }

  setZoom(z, fx, fy) {
    const s = this.scroll;
    const cx = fx !== undefined ? fx : (s.scrollLeft + s.clientWidth / 2) / s.scrollWidth;
    const cy = fy !== undefined ? fy : (s.scrollTop + s.clientHeight / 2) / s.scrollHeight;
    this.zoom = z;
    this.svg.style.width = `${z * 100}%`;
    this.container.classList.toggle("zoomed", z > 1);
    s.scrollLeft = cx * s.scrollWidth - s.clientWidth / 2;
    s.scrollTop = cy * s.scrollHeight - s.clientHeight / 2;
    this.fitHits();
  }

  // Screen pixels per map unit, as drawn now.
  scale() {
    return this.svg.getBoundingClientRect().width / this.map.size[0] || 0;
  }

  // Every hit area at least 44 px across at this scale (maphit.js); overlaps go to the nearest.
  fitHits() {
    const scale = this.scale();
    if (!scale) return;
    const h = hitSizes(this.map, scale);
    for (const e of this.hitEls) {
      if (e.tagName === "circle") e.setAttribute("r", h.cityR);
      else {
        e.setAttribute("x", -h.spaceW / 2);
        e.setAttribute("width", h.spaceW);
        e.setAttribute("y", -h.spaceH / 2);
        e.setAttribute("height", h.spaceH);
      }
    }
  }

  click(e) {
    if (this.zoom === 1 && !this.container.classList.contains("tap-direct")) {
      const box = this.svg.getBoundingClientRect();
      this.setZoom(2.5, (e.clientX - box.left) / box.width, (e.clientY - box.top) / box.height);
      return;
    }
    // the nearest city or route whose hit area the tap is in (not only the topmost shape)
    const d = this.down;
    const fresh = d && e.timeStamp - d.t < 1500 && Math.hypot(d.x - e.clientX, d.y - e.clientY) < 48;
    const p = new DOMPoint(fresh ? d.x : e.clientX, fresh ? d.y : e.clientY).matrixTransform(this.svg.getScreenCTM().inverse());
    const hit = resolveTap(this.map, p.x, p.y, this.scale());
    if (hit && hit.city && this.onCity) this.onCity(hit.city);
    else if (hit && hit.route && this.onRoute) this.onRoute(hit.route);
  }

  // owners: {routeId: color}; stations: {cityId: color}; names: {color: name}; unsure: Set of ids
  update(owners, stations, names, unsure) {
    this.owners = owners || {};
    this.stationOwners = stations || {};
    this.names = names || {};
    for (const [id, g] of Object.entries(this.routeEls)) {
      const o = this.owners[id];
      g.classList.toggle("claimed", !!o);
      g.classList.toggle("unsure", !!(unsure && unsure.has(id)));
      g.classList.toggle("closed", this.isClosed(id));
      for (const rect of g.querySelectorAll(".space")) rect.setAttribute("fill", o ? PLAYER_COLORS[o] : CARD_COLORS[this.map.routes[id].color]);
      if (o) g.dataset.owner = o;
      else delete g.dataset.owner;
    }
    this.stationLayer.textContent = "";
    for (const [cid, color] of Object.entries(this.stationOwners)) {
      const c = this.map.cities[cid];
      if (!c || !color) continue;
      const g = svg("g", { class: "station", "data-station": cid, transform: `translate(${c.x + 13} ${c.y - 16})` }, this.stationLayer);
      svg("path", { d: "M-8,1 L0,-8 L8,1 L8,10 L-8,10 Z", fill: PLAYER_COLORS[color] }, g);
    }
    this.relabel();
  }

  // Claims with a payment problem the host has not settled: a mark on the route (or city).
  markProblems(ids) {
    const set = new Set(ids || []);
    for (const [id, g] of Object.entries(this.routeEls)) g.classList.toggle("problem", set.has(id));
    for (const [id, g] of Object.entries(this.cityEls)) g.classList.toggle("problem", set.has(id));
  }

  routeLine(id) {
    const r = this.map.routes[id];
    if (!r) return "";
    let pts = r.spaces.map((s) => [s.x, s.y]);
    if (pts.length === 1) {
      const s = r.spaces[0];
      const a = (s.angle * Math.PI) / 180;
      const d = this.map.space[0] / 2;
      pts = [
        [s.x - d * Math.cos(a), s.y - d * Math.sin(a)],
        [s.x + d * Math.cos(a), s.y + d * Math.sin(a)],
      ];
    }
    return pts.map(([x, y]) => `${x},${y}`).join(" ");
  }

  // lines: [{routes: [ids], color: css colour, cities: [ids]}]
  highlight(lines) {
    this.hl.textContent = "";
    for (const line of lines || []) {
      for (const id of line.routes || []) {
        // a white casing under the line: it stands out from the player's own trains
        svg("polyline", { points: this.routeLine(id), class: "hl-casing" }, this.hl);
        svg("polyline", { points: this.routeLine(id), class: `hl ${line.cls || ""}`, stroke: line.color || "#ff00aa" }, this.hl);
      }
      for (const cid of line.cities || []) {
        const c = this.map.cities[cid];
        if (c) svg("circle", { cx: c.x, cy: c.y, r: 17, class: "hl-city", stroke: line.color || "#ff00aa" }, this.hl);
      }
    }
  }

  // Bring the highlighted routes and cities into view: zoom so that they fit, centred on them.
  reveal(lines) {
    const pts = [];
    for (const line of lines || []) {
      for (const id of line.routes || []) for (const s of this.map.routes[id]?.spaces || []) pts.push([s.x, s.y]);
      for (const cid of line.cities || []) if (this.map.cities[cid]) pts.push([this.map.cities[cid].x, this.map.cities[cid].y]);
    }
    if (!pts.length) return;
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const [w, h] = [1500, 1000];
    const span = Math.max((Math.max(...xs) - Math.min(...xs) + 160) / w, (Math.max(...ys) - Math.min(...ys) + 160) / h);
    const zoom = Math.max(1, Math.min(this.zoom || 1, 1 / span));
    this.setZoom(zoom, (Math.max(...xs) + Math.min(...xs)) / 2 / w, (Math.max(...ys) + Math.min(...ys)) / 2 / h);
  }

  select(id) {
    for (const g of this.svg.querySelectorAll(".selected")) g.classList.remove("selected");
    if (id && this.routeEls[id]) this.routeEls[id].classList.add("selected");
    if (id && this.cityEls[id]) this.cityEls[id].classList.add("selected");
  }
}
