// One device: its health, its family's calibration page, and its log, all live.
import { ROOT, api, clear, el, header, live, requireMe, timeOf } from "./common.js";
import { connectionPill, errorSummary, firmware } from "./tech.js";
import { sendCommand } from "./device_commands.js";
import { loadPage } from "./families/index.js";

const main = document.getElementById("main");
const [tableId, role] = location.pathname.split("/").filter(Boolean).slice(-2).map(decodeURIComponent);
const deviceId = `${tableId}/${role}`;
let device = null;
let page = null;
const log = [];
const parts = {};

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

async function start() {
  await requireMe();
  const data = await api(`/devices/${encodeURIComponent(tableId)}/${encodeURIComponent(role)}`);
  device = data.device;
  log.push(...data.log);
  header(`Device ${deviceId}`);
  parts.health = el("section", { class: "panel", id: "health" });
  parts.family = el("section", { class: "panel", id: "family-page" });
  parts.log = el("section", { class: "panel", id: "log" });
  clear(main).append(
    el("div", { class: "row" }, el("a", { class: "button", href: `${ROOT}/tech` }, "All devices"),
      el("h1", { style: "margin:0" }, `${data.family.name}: ${deviceId}`)),
    el("div", { class: "grid-2", style: "margin-top:12px" },
      el("div", {}, parts.family), el("div", {}, parts.health, parts.log)));
  const render = await loadPage(data.family.page);
  const base = `/devices/${encodeURIComponent(tableId)}/${encodeURIComponent(role)}`;
  page = render(parts.family, {
    device, family: data.family, log, page: data.page, tableId, role, game: data.game,
    send: (command, quiet = false) => sendCommand(tableId, role, command, "command", false, quiet),
    selfTest: () => sendCommand(tableId, role, null, "self-test"),
    refresh: async () => (await api(`${base}/page`)).page,
    act: (action, body = {}) => api(`/tables/${encodeURIComponent(tableId)}/actions/${action}`,
      { method: "POST", body }),
  }) || {};
  renderHealth();
  renderLog();
  live("devices=1", (msg) => {
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
