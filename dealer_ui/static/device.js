// One device: its health, its family's calibration page, and its log, all live.
import { ROOT, api, clear, el, header, live, requireMe, timeOf, toast } from "./common.js";
import { connectionPill, errorSummary, firmware } from "./tech.js";
import { sendCommand } from "./device_commands.js";
import { loadPage } from "./families/index.js";

const main = document.getElementById("main");
const [tableId, role] = location.pathname.split("/").filter(Boolean).slice(-2).map(decodeURIComponent);
const deviceId = `${tableId}/${role}`;
let device = null;
let page = null;
let maintenance = null; // the table's maintenance state: {on, by, reason, since, decisions} or null
let round = null;
const log = [];
const parts = {};

const OPEN = ["betting_open", "betting_closed", "in_play", "result_pending"];

const box = {}; // the maintenance panel's parts, made once: a live update never wipes what is being typed

/** Maintenance mode of the device's table: while it is on, device tests are journaled and never published.
 * Asked for while a round is open, it is pending and comes on when the round ends (studio/maintenance.py). */
function renderMaintenance() {
  const m = maintenance;
  const on = !!(m && m.on);
  const pending = !on && m && m.pending ? m.pending : null;
  if (!box.reason) buildMaintenance();
  box.title.textContent = `Maintenance mode: table ${tableId}`;
  box.pill.className = `pill ${on ? "warn" : pending ? "warn" : "ok"}`;
  box.pill.textContent = on ? "In maintenance" : pending ? "Maintenance pending" : "Live: real rounds";
  box.who.textContent = on ? `${m.reason} (${m.by}, since ${timeOf(m.since)})`
    : pending ? `${pending.reason} (${pending.by}, asked at ${timeOf(pending.requested_at)})` : "";
  box.text.textContent = on ? "No round opens. What the judge would decide about a test (a test spin's number, a " +
    "void) is journaled and shown here and on the dealer's screen, never published."
    : pending ? `Round ${pending.round_number} plays on to its end; then the table goes into maintenance. No new ` +
      "round opens meanwhile."
    : "Turn it on before testing the device: a test outside maintenance is a real game for the players.";
  const roundOpen = !on && !pending && round && OPEN.includes(round.state);
  box.open.textContent = roundOpen ? `Round ${round.round_number} is open: maintenance comes on when it ends.` : "";
  box.open.classList.toggle("hidden", !roundOpen);
  box.label.textContent = on ? "What was done" : pending ? "Note (optional)" : "Reason";
  box.reason.placeholder = on ? "What was done (optional)" : pending ? "Why the request is cancelled (optional)"
    : "Why (e.g. wheel settings and test spin)";
  box.toggle.className = on || pending ? "go big" : "danger big";
  box.toggle.textContent = on ? "Turn maintenance off" : pending ? "Cancel the request" : "Turn maintenance on";
  clear(box.decisions);
  if (on) {
    const list = el("ul", { class: "live-list", id: "maintenance-decisions" });
    for (const d of m.decisions || []) list.append(el("li", {}, el("span", { class: "at" }, timeOf(d.at)), d.message));
    box.decisions.append(el("h3", {}, "What the judge would have decided"), list);
  }
}

function buildMaintenance() {
  box.title = el("h2", {});
  box.pill = el("span", { id: "maintenance-state" });
  box.who = el("span", {});
  box.text = el("p", {});
  box.open = el("p", { class: "muted", id: "maintenance-round" });
  box.label = el("label", { for: "maintenance-reason" });
  box.reason = el("input", { id: "maintenance-reason", autocomplete: "off", maxlength: "500" });
  box.toggle = el("button", { type: "button", id: "maintenance-toggle", onclick: toggleMaintenance });
  box.decisions = el("div", {});
  clear(parts.maintenance).append(box.title, el("div", { class: "row" }, box.pill, box.who), box.text, box.open,
    box.label, el("div", { class: "row" }, box.reason, box.toggle), box.decisions);
}

async function toggleMaintenance() {
  const m = maintenance;
  const on = !!(m && m.on);
  const pending = !on && m && m.pending;
  const text = box.reason.value.trim();
  if (!on && !pending && text.length < 3) { toast("Say in a few words why the table goes into maintenance.", "bad"); return; }
  try {
    const res = await api(`/tables/${encodeURIComponent(tableId)}/maintenance`,
      { method: "POST", body: { on: !on && !pending, reason: text } });
    box.reason.value = "";
    setMaintenance(res.maintenance);
    const now = res.maintenance || {};
    toast(on ? "Maintenance off: the table runs real rounds again."
      : pending ? "Request cancelled: the table goes on with real rounds."
      : now.pending ? "Maintenance asked for: it comes on when the round ends." : "Maintenance on: nothing is published.",
    "good", 4000);
  } catch (e) { toast(e.message, "bad"); }
}

function setMaintenance(m) {
  maintenance = m;
  renderMaintenance();
  if (page && page.maintenance) page.maintenance(m);
}

function renderHealth() {
  const d = device;
  const c = d.counters || {};
  clear(parts.health).append(el("h2", {}, "Health"),
    el("div", { class: "row" }, connectionPill(d), el("span", {}, d.url || "")),
    el("dl", { class: "kv" },
      el("dt", {}, "Last message"), el("dd", { class: "mono", id: "last-line" }, d.last_line || "\u2014"),
      el("dt", {}, "At"), el("dd", {}, timeOf(d.last_line_at) || "\u2014"),
      el("dt", {}, "Last error"), el("dd", {}, d.last_error || "none"),
      el("dt", {}, "Errors"), el("dd", { id: "errors" }, errorSummary(d)),
      el("dt", {}, "Lines / commands"), el("dd", {}, `${c.lines ?? 0} / ${c.commands_sent ?? 0}`),
      el("dt", {}, "Firmware / mode"), el("dd", { id: "firmware" }, firmware(d))));
}

function renderLog() {
  clear(parts.log).append(el("h2", {}, "Device log (since the studio started; the journal keeps everything)"));
  const list = el("ul", { class: "live-list", id: "device-log", style: "max-height:360px" });
  for (const e of log.slice(0, 200)) {
    list.append(el("li", { class: e.kind === "command" ? "mono" : "" }, el("span", { class: "at" }, timeOf(e.at)),
      `${e.kind}: ${e.summary}`));
  }
  parts.log.append(list);
}

// every calibration, setting, self-test, check, shoe change, maintenance switch and connection, from the journal
async function renderEquipmentLog() {
  const base = `/devices/${encodeURIComponent(tableId)}/${encodeURIComponent(role)}/equipment-log`;
  const data = await api(base);
  const rows = data.entries.map((e) => el("tr", {},
    el("td", { class: "at" }, timeOf(e.at)), el("td", {}, e.what.replace(/_/g, " ")),
    el("td", {}, e.by || "\u2014"), el("td", {}, e.device_id ? e.detail : `table: ${e.detail}`)));
  clear(parts.equipment).append(
    el("div", { class: "row" }, el("h2", { style: "margin:0" }, "Equipment log"),
      el("a", { class: "button", href: `${ROOT}/api${base}?format=csv`, download: "" }, "Download CSV")),
    el("p", { class: "muted" }, `${data.total} entries in the journal`),
    el("div", { class: "scroll", style: "max-height:360px;overflow:auto" },
      el("table", { class: "devices", id: "equipment-log" },
        el("thead", {}, el("tr", {}, ["When", "What", "Who", "Detail"].map((h) => el("th", {}, h)))),
        el("tbody", {}, rows))));
}

async function start() {
  await requireMe();
  const data = await api(`/devices/${encodeURIComponent(tableId)}/${encodeURIComponent(role)}`);
  device = data.device;
  maintenance = data.maintenance || null;
  round = data.round || null;
  log.push(...data.log);
  header(`Device ${deviceId}`);
  parts.health = el("section", { class: "panel", id: "health" });
  parts.maintenance = el("section", { class: "panel", id: "maintenance" });
  parts.family = el("section", { class: "panel", id: "family-page" });
  parts.log = el("section", { class: "panel", id: "log" });
  parts.equipment = el("section", { class: "panel", id: "equipment" });
  clear(main).append(
    el("div", { class: "row" }, el("a", { class: "button", href: `${ROOT}/tech` }, "All devices"),
      el("h1", { style: "margin:0" }, `${data.family.name}: ${deviceId}`)),
    el("div", { class: "grid-2", style: "margin-top:12px" },
      el("div", {}, parts.maintenance, parts.family), el("div", {}, parts.health, parts.log, parts.equipment)));
  const render = await loadPage(data.family.page);
  const base = `/devices/${encodeURIComponent(tableId)}/${encodeURIComponent(role)}`;
  page = render(parts.family, {
    device, family: data.family, log, page: data.page, tableId, role, game: data.game,
    maintenance: () => maintenance,
    send: (command, quiet = false) => sendCommand(tableId, role, command, "command", false, quiet),
    selfTest: () => sendCommand(tableId, role, null, "self-test"),
    refresh: async () => (await api(`${base}/page`)).page,
    act: (action, body = {}) => api(`/tables/${encodeURIComponent(tableId)}/actions/${action}`,
      { method: "POST", body }),
  }) || {};
  renderHealth();
  renderLog();
  renderMaintenance();
  renderEquipmentLog().catch(() => {});
  live("devices=1", (msg) => {
    if (msg.type === "event" && msg.table_id === tableId) {
      if (msg.what === "maintenance") setMaintenance(msg.data);
      else if (msg.what === "maintenance_decision" && maintenance && maintenance.on) {
        maintenance.decisions = [{ at: msg.at, ...msg.data }, ...(maintenance.decisions || [])].slice(0, 10);
        renderMaintenance();
      } else if (msg.what === "round") {
        round = msg.data;
        renderMaintenance();
      }
      return;
    }
    if (msg.type === "devices") {
      const d = msg.devices.find((x) => x.device_id === deviceId);
      if (d) { device = d; renderHealth(); if (page.update) page.update(d); }
    } else if (msg.type === "device" && msg.device_id === deviceId) {
      log.unshift(msg.event);
      log.length = Math.min(log.length, 300);
      renderLog();
      if (page.event) page.event(msg.event);
    }
  });
}

start();
