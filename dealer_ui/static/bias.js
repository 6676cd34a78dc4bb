// The equipment watch on the technicians' page: each wheel's, die's, ball set's and shoe's counts against fair
// equipment (an SVG bar per category, the fair count as a line), hot and cold categories, the latest test and
// any alarm. Drawn by the page from GET /console/api/bias (studio/bias_watch.py).
import { api, clear, el, svg } from "./common.js";

// bars of observed counts, a tick at each expected count; a category far off fair is drawn in amber
export function chart(series) {
  const cats = Object.keys(series.expected);
  const width = Math.max(320, cats.length * 18), height = 140, base = 110;
  const top = Math.max(1, ...cats.map((c) => Math.max(series.counts[c] || 0, series.expected[c])));
  const bar = width / cats.length;
  const scale = (v) => (v / top) * (base - 10);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "bias-chart", role: "img",
    "aria-label": `${series.quantity} counts against fair equipment` });
  cats.forEach((c, i) => {
    const seen = series.counts[c] || 0, fair = series.expected[c];
    const far = fair > 0 && Math.abs(seen - fair) / Math.sqrt(fair) > 3;
    root.append(
      svg("rect", { x: i * bar + 2, y: base - scale(seen), width: bar - 4, height: scale(seen),
        class: far ? "bar far" : "bar", "data-category": c, "data-observed": seen },
        svg("title", {}, `${c}: ${seen} seen, ${fair.toFixed(1)} fair`)),
      svg("line", { x1: i * bar, x2: (i + 1) * bar, y1: base - scale(fair), y2: base - scale(fair), class: "fair" }),
      svg("text", { x: i * bar + bar / 2, y: base + 16, "text-anchor": "middle", class: "label" },
        c.length > 4 ? c.slice(0, 4) : c));
  });
  return root;
}

function hotAndCold(series) {
  const cats = Object.keys(series.expected).map((c) => [c, (series.counts[c] || 0) - series.expected[c]]);
  cats.sort((a, b) => b[1] - a[1]);
  const name = ([c]) => c;
  return `hot: ${cats.slice(0, 3).map(name).join(", ")} \u00b7 cold: ${cats.slice(-3).reverse().map(name).join(", ")}`;
}

function verdict(series) {
  if (series.alarm) {
    const a = series.alarm;
    return el("span", { class: "pill bad", role: "alert" },
      `Bias alarm: p = ${a.p_value.toPrecision(2)} < ${a.level.toPrecision(2)} after ${a.n}`);
  }
  if (!series.last_test) return el("span", { class: "pill" }, `First test at ${series.next_test_at}`);
  return el("span", { class: "pill ok" }, `Fair so far: p = ${series.last_test.p_value.toPrecision(2)}`);
}

function card(series) {
  const t = series.last_test;
  return el("div", { class: "panel bias", id: `bias-${series.device_id.replace("/", "-")}-${series.quantity.replace(/ /g, "-")}` },
    el("h3", {}, `${series.device_id} \u00b7 ${series.quantity}`),
    el("div", { class: "row" }, verdict(series),
      el("span", { class: "muted" }, `${series.n} counted \u00b7 next test at ${series.next_test_at}`)),
    chart(series),
    el("div", { class: "muted" }, series.n ? hotAndCold(series) : "nothing counted yet"),
    t ? el("div", { class: "counters" }, `${t.method}, statistic ${t.statistic} on ${t.df} degrees of freedom, `
      + `level of this test ${t.level.toPrecision(2)}`) : null);
}

export async function renderBias(into) {
  const data = await api("/bias");
  clear(into).append(
    el("h2", {}, "Equipment watch"),
    el("p", { class: "muted" }, `Each series is tested as its count doubles; the chance that fair equipment ever `
      + `raises an alarm is at most ${data.level}. ${data.alarms ? `${data.alarms} in alarm.` : "No alarm."}`),
    ...(data.series.length ? data.series.map(card) : [el("p", {}, "No certified result counted yet.")]));
}
