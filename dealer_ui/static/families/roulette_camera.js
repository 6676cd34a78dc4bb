// Overhead roulette camera: the latest reading (balls and their pockets, the rotor's angle, how well the number
// ring matched its calibrated colours) drawn over the latest frame when the driver keeps one, else over a
// plan of the wheel from the camera's calibration; and the camera's figures.
import { ROOT, clear, el, svg, timeOf } from "../common.js";
import { missingNote } from "./generic.js";

/** A plan of the wheel: the pockets in the calibrated order, turned by the rotor angle, balls' pockets marked. */
function plan(cal, rotorDeg, pockets) {
  const order = cal.order || [];
  const colors = cal.colors || [];
  const n = order.length || 37;
  const box = svg("svg", { viewBox: "-110 -110 220 220", width: "100%", height: "360", role: "img", id: "camera-plan",
    "aria-label": `wheel plan${pockets.length ? ", balls in " + pockets.join(", ") : ""}` });
  const turn = (cal.clockwise === false ? -1 : 1) * (rotorDeg || 0);
  const g = svg("g", { transform: `rotate(${turn})` });
  const fill = { red: "#b0231b", black: "#111", green: "#17743a" };
  order.forEach((p, i) => {
    const a0 = (i / n) * 2 * Math.PI - Math.PI / 2, a1 = ((i + 1) / n) * 2 * Math.PI - Math.PI / 2;
    const r0 = 62, r1 = 96;
    const pt = (r, a) => `${(r * Math.cos(a)).toFixed(2)} ${(r * Math.sin(a)).toFixed(2)}`;
    const ball = pockets.includes(p);
    g.append(svg("path", { d: `M ${pt(r0, a0)} L ${pt(r1, a0)} A ${r1} ${r1} 0 0 1 ${pt(r1, a1)} L ${pt(r0, a1)} A ${r0} ${r0} 0 0 0 ${pt(r0, a0)} Z`,
      fill: fill[colors[i]] || "#333", stroke: ball ? "#ffd84d" : "#666", "stroke-width": ball ? 3 : 0.5 }));
    const am = (a0 + a1) / 2;
    g.append(svg("text", { x: (80 * Math.cos(am)).toFixed(2), y: (80 * Math.sin(am)).toFixed(2), fill: "#fff",
      "font-size": 7, "text-anchor": "middle", "dominant-baseline": "middle" }, p));
    if (ball) g.append(svg("circle", { cx: (55 * Math.cos(am)).toFixed(2), cy: (55 * Math.sin(am)).toFixed(2), r: 6, fill: "#fff", stroke: "#ffd84d", "stroke-width": 2 }));
  });
  box.append(g, svg("polygon", { points: "0,-108 -5,-99 5,-99", fill: "#ffd84d" }));
  return box;
}

export function render(container, ctx) {
  let data = ctx.page || {};
  const view = el("section", { id: "camera-view" });
  const figures = el("section", { id: "camera-figures" });
  let frameUrl = null;

  async function loadFrame() {
    if (!data.has_frame) return null;
    try {
      const res = await fetch(`${ROOT}/api/devices/${encodeURIComponent(ctx.tableId)}/${encodeURIComponent(ctx.role)}/frame`, { credentials: "same-origin" });
      if (!res.ok) return null;
      if (frameUrl) URL.revokeObjectURL(frameUrl);
      frameUrl = URL.createObjectURL(await res.blob());
      return frameUrl;
    } catch (e) { return null; }
  }

  async function draw() {
    const rest = data.last_at_rest;
    const f = data.figures || {};
    const pockets = rest ? rest.pockets || [] : (f.balls || []).filter((x) => x && x !== "track" && x !== "between");
    const rotor = rest ? rest.rotor_angle_cdeg / 100 : null;
    clear(view).append(el("h2", {}, "Overhead camera"));
    const url = await loadFrame();
    if (url) {
      const wrap = el("div", { class: "frame-wrap" }, el("img", { src: url, alt: "the camera's latest frame", id: "camera-frame" }));
      const o = data.overlay;
      if (o && o.width && o.height) {
        const layer = svg("svg", { viewBox: `0 0 ${o.width} ${o.height}`, class: "frame-overlay" });
        for (const b of o.balls || []) layer.append(svg("circle", { cx: b.x, cy: b.y, r: b.r || 12, fill: "none", stroke: "#ffd84d", "stroke-width": 4 }));
        wrap.append(layer);
      }
      view.append(wrap);
    } else if (data.calibration) {
      view.append(plan(data.calibration, rotor, pockets),
        el("p", { class: "muted" }, "A plan of the wheel from the camera's calibration, turned by the last rotor angle read."));
    }
    view.append(el("p", { class: "big-text", id: "camera-reading" }, rest
      ? `Last balls at rest: ${pockets.join(", ") || "none"} \u00b7 rotor ${rotor.toFixed(2)}\u00b0 \u00b7 ring match ${rest.quality}% (${timeOf(data.last_at_rest_at)})`
      : "No balls at rest seen since the studio started."));
    const m = missingNote(data.missing);
    if (m) view.append(m);
    const c = data.calibration || {};
    clear(figures).append(el("h2", { style: "margin-top:14px" }, "Figures"), el("dl", { class: "kv", id: "camera-kv" },
      el("dt", {}, "Connected"), el("dd", {}, f.connected ? "yes" : "no"),
      el("dt", {}, "Spinning"), el("dd", {}, f.spinning === null || f.spinning === undefined ? "\u2014" : f.spinning ? "yes" : "no"),
      el("dt", {}, "Rotor found"), el("dd", { id: "camera-rotor" }, f.rotor_found === null || f.rotor_found === undefined ? "\u2014" : f.rotor_found ? "yes" : "no"),
      el("dt", {}, "Number ring match"), el("dd", {}, f.ring_quality === null || f.ring_quality === undefined ? "\u2014" : `${f.ring_quality}%`),
      el("dt", {}, "Balls now"), el("dd", { id: "camera-balls" }, (f.balls || []).join(", ") || "\u2014"),
      el("dt", {}, "Time per frame"), el("dd", {}, f.mean_read_ms ? `${f.mean_read_ms} ms` : "\u2014"),
      el("dt", {}, "Counters"), el("dd", { class: "counters" }, Object.entries(f.counters || {}).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(", ")),
      el("dt", {}, "Calibration"), el("dd", { class: "mono" }, c.center ? `centre ${c.center.join(",")} radius ${c.radius}, ${c.order.length} pockets, ` +
        `${c.clockwise === false ? "mirrored" : "clockwise"}, pocket offset ${c.pocket_offset_deg}\u00b0` : "not available")));
  }

  container.append(view, figures);
  draw();
  let last = 0;
  async function refresh() {
    last = Date.now();
    try { data = (await ctx.refresh()) || data; await draw(); } catch (e) { /* next update */ }
  }
  return {
    event(entry) { if (/^roulette_/.test(entry.kind || "")) refresh(); },
    update() { if (Date.now() - last > 2000) refresh(); },
  };
}
