// The shift manager's page: rounds, voids, holds and manual results per table and per dealer, voids and holds
// hour by hour, and the roads of every table whose results name a winner (baccarat's bead plate and big road).
// Plain SVG drawn by the page from the console's statistics API (studio/statistics.py, studio/roads.py).
import { api, clear, el, header, requireMe, svg } from "./common.js";

const main = document.getElementById("main");
const COLORS = { banker: "#c62828", player: "#1d58b8", tie: "#17743a", dragon: "#c62828", tiger: "#1d58b8" };
const sum = (o) => Object.values(o || {}).reduce((a, b) => a + b, 0);

function figuresTable(id, first, groups) {
  const head = [first, "Rounds", "Certified", "Voided", "Held", "Manual", "Corrections", "Mean s", "Reasons"];
  const rows = Object.entries(groups).map(([name, f]) => el("tr", {},
    el("td", {}, el("strong", {}, name || "(nobody signed in)")),
    el("td", {}, f.rounds), el("td", {}, f.certified), el("td", {}, sum(f.voided)), el("td", {}, sum(f.holds)),
    el("td", {}, f.manual_results), el("td", {}, f.corrections),
    el("td", {}, f.mean_round_seconds === null ? "\u2014" : f.mean_round_seconds.toFixed(1)),
    el("td", { class: "counters" }, [...Object.entries(f.voided).map(([k, n]) => `void ${k} ${n}`),
      ...Object.entries(f.holds).map(([k, n]) => `hold ${k} ${n}`)].join(", "))));
  return el("table", { class: "devices", id }, el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows));
}

// voids (red) and holds (amber) stacked per hour; rounds certified as a thin line of dots
export function overTime(groups) {
  const hours = Object.keys(groups).sort();
  const width = Math.max(320, hours.length * 36), height = 160, base = 130;
  const top = Math.max(1, ...hours.map((h) => sum(groups[h].voided) + sum(groups[h].holds)));
  const scale = (v) => (v / top) * (base - 14);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "bias-chart", id: "over-time", role: "img",
    "aria-label": "voids and holds per hour" });
  hours.forEach((h, i) => {
    const v = sum(groups[h].voided), held = sum(groups[h].holds), x = i * 36 + 6;
    root.append(
      svg("rect", { x, y: base - scale(v), width: 24, height: scale(v), fill: "#b0231b", "data-hour": h,
        "data-voided": v }, svg("title", {}, `${h}:00 ${v} voided`)),
      svg("rect", { x, y: base - scale(v) - scale(held), width: 24, height: scale(held), fill: "#f5b625",
        "data-held": held }, svg("title", {}, `${h}:00 ${held} held`)),
      svg("text", { x: x + 12, y: base + 16, "text-anchor": "middle", class: "label" }, h.slice(11, 13)));
  });
  return root;
}

export function beadPlate(cells) {
  const cols = Math.max(6, ...cells.map((c) => c.col + 1));
  const root = svg("svg", { viewBox: `0 0 ${cols * 24} ${6 * 24}`, class: "road", role: "img", "aria-label": "bead plate" });
  for (const c of cells) {
    root.append(svg("circle", { cx: c.col * 24 + 12, cy: c.row * 24 + 12, r: 10, fill: COLORS[c.winner] || "#777",
      "data-winner": c.winner }),
      svg("text", { x: c.col * 24 + 12, y: c.row * 24 + 16, "text-anchor": "middle", class: "bead" },
        c.winner[0].toUpperCase()));
  }
  return root;
}

export function bigRoad(cells) {
  const cols = Math.max(12, ...cells.map((c) => c.col + 1));
  const root = svg("svg", { viewBox: `0 0 ${cols * 20} ${6 * 20}`, class: "road", role: "img", "aria-label": "big road" });
  for (const c of cells) {
    const cx = c.col * 20 + 10, cy = c.row * 20 + 10;
    root.append(svg("circle", { cx, cy, r: 8, fill: "none", stroke: COLORS[c.winner] || "#777", "stroke-width": 3,
      "data-winner": c.winner, "data-ties": c.ties }));
    if (c.ties) root.append(svg("line", { x1: cx - 7, y1: cy + 7, x2: cx + 7, y2: cy - 7, stroke: COLORS.tie,
      "stroke-width": 3 }));
  }
  return root;
}

async function roadsOf(table) {
  const r = await api(`/tables/${encodeURIComponent(table.table_id)}/roads`);
  if (!r.rounds.length) return null;
  return el("div", { class: "panel", id: `roads-${table.table_id}` },
    el("h3", {}, `${table.table_id} \u00b7 ${r.game}: the last ${r.rounds.length} rounds`),
    el("div", { class: "muted" }, "Bead plate"), beadPlate(r.bead_plate),
    el("div", { class: "muted" }, "Big road"), bigRoad(r.big_road));
}

async function render(parts) {
  const [byTable, byDealer, byHour, tables] = await Promise.all([
    api("/statistics?by=table"), api("/statistics?by=dealer"), api("/statistics?by=hour"), api("/tables")]);
  clear(parts.tables).append(el("h2", {}, "Tables"), figuresTable("by-table", "Table", byTable.groups));
  clear(parts.dealers).append(el("h2", {}, "Dealers"), figuresTable("by-dealer", "Dealer", byDealer.groups));
  clear(parts.time).append(el("h2", {}, "Voids and holds, hour by hour (UTC)"), overTime(byHour.groups));
  const roads = (await Promise.all(tables.map(roadsOf))).filter(Boolean);
  clear(parts.roads).append(el("h2", {}, "Roads"), ...(roads.length ? roads : [el("p", {}, "No table names a winner yet.")]));
}

async function start() {
  await requireMe();
  header("Statistics");
  const parts = Object.fromEntries(["tables", "dealers", "time", "roads"].map((k) =>
    [k, el("section", { class: "panel", id: `stats-${k}` })]));
  clear(main).append(el("h1", {}, "Statistics"), ...Object.values(parts));
  await render(parts);
  setInterval(() => render(parts).catch(() => {}), 15000);
}

if (document.body.classList.contains("stats")) start();
