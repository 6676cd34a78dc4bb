// The tables: a dealer picks the table this screen shows. Live: each card follows its table.
import { ROOT, api, clear, el, header, live, requireMe } from "./common.js";
import { resultText } from "./render.js";

const main = document.getElementById("main");
const cards = {};

function held(t) {
  if ("held" in t) return t.held;
  return !!((t.round && t.round.holds && t.round.holds.length && !["certified", "voided"].includes(t.round.state)) ||
    (t.holds && t.holds.length));
}

/** One table's card, from its summary (GET /tables) or its live view. */
function card(t) {
  const r = t.round;
  const state = t.status === "paused" ? "Paused" : held(t) ? "Held" : r ? r.state.replace(/_/g, " ") : "No round yet";
  return el("a", { class: "table-card", href: `${ROOT}/table/${encodeURIComponent(t.table_id)}`,
    id: `table-${t.table_id}` },
    el("strong", {}, t.table_id),
    el("div", { class: "muted" }, `${t.game.replace(/_/g, " ")} \u00b7 ${t.pacing}-paced`),
    el("div", {}, r ? `Round ${r.round_number}: ${state}` : state),
    r && r.result ? el("div", {}, `Result ${resultText(r.result)}`) : null);
}

async function start() {
  await requireMe();
  header("Studio console");
  const tables = await api("/tables");
  const grid = el("div", { class: "tables" });
  for (const t of tables) { cards[t.table_id] = card(t); grid.append(cards[t.table_id]); }
  clear(main).append(el("h1", {}, "Tables"), grid);
  if (!tables.length) main.append(el("p", {}, "This studio has no tables."));
  if (tables.length) {
    live(`tables=${tables.map((t) => encodeURIComponent(t.table_id)).join(",")}`, (msg) => {
      if (msg.type !== "table" || !cards[msg.table_id]) return;
      const next = card(msg.view);
      cards[msg.table_id].replaceWith(next);
      cards[msg.table_id] = next;
    });
  }
}

start();
