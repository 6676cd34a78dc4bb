// Technician overview: every device with its connection, last message, error counters and firmware/mode.
import { ROOT, clear, el, header, live, requireMe, timeOf, api } from "./common.js";
import { sendCommand } from "./device_commands.js";
import { renderBias } from "./bias.js";

const main = document.getElementById("main");
let body = null;

const ERROR_COUNTERS = ["disconnects", "reconnects", "open_failures", "silences", "unknown_lines", "handler_errors",
  "callback_errors", "garbage_bytes", "decode_errors", "overlong_lines", "partial_lines_dropped"];
const DEVICE_COUNTERS = ["faults", "unknown", "restarts", "result_conflicts", "orphan_numbers"];

export function connectionPill(d) {
  if (!d.connected) return el("span", { class: "pill bad" }, "Not connected");
  if (d.silent) return el("span", { class: "pill warn" }, "Silent");
  return el("span", { class: "pill ok" }, "Connected");
}

export function errorSummary(d) {
  const c = d.counters || {};
  const dev = d.device || {};
  const items = ERROR_COUNTERS.filter((k) => c[k]).map((k) => `${k.replace(/_/g, " ")} ${c[k]}`)
    .concat(DEVICE_COUNTERS.filter((k) => dev[k]).map((k) => `${k.replace(/_/g, " ")} ${dev[k]}`));
  return items.length ? items.join(", ") : "none";
}

export function firmware(d) {
  const dev = d.device || {};
  const parts = [];
  if (dev.firmware_version) parts.push(`firmware ${dev.firmware_version}`);
  if (dev.firmware_full) parts.push(dev.firmware_full);
  if (dev.mode !== undefined && dev.mode !== null) parts.push(`mode ${dev.mode}`);
  return parts.length ? parts.join(", ") : "not read yet";
}

function row(d) {
  const [table, role] = d.device_id.split("/");
  const page = `${ROOT}/tech/${encodeURIComponent(table)}/${encodeURIComponent(role)}`;
  return el("tr", { id: `device-${d.device_id.replace("/", "-")}` },
    el("td", {}, el("strong", {}, d.device_id), el("div", { class: "muted" }, `${d.kind || "?"} \u00b7 ${d.serial_number || ""}`)),
    el("td", {}, connectionPill(d), d.last_error && !d.connected ? el("div", { class: "counters" }, d.last_error) : null),
    el("td", { class: "mono" }, d.last_line || "\u2014", el("div", { class: "counters" }, timeOf(d.last_line_at))),
    el("td", { class: "counters" }, errorSummary(d)),
    el("td", {}, firmware(d)),
    el("td", {}, el("div", { class: "row" },
      el("a", { class: "button primary", href: page }, "Open"),
      d.self_test ? el("button", { type: "button", onclick: () => sendCommand(table, role, null, "self-test") },
        "Self-test") : null)));
}

function render(devices) {
  clear(body).append(...devices.map(row));
}

async function start() {
  await requireMe();
  header("Devices");
  clear(main).append(el("h1", {}, "Devices"),
    el("div", { class: "panel" }, el("table", { class: "devices", id: "devices" },
      el("thead", {}, el("tr", {}, ["Device", "Connection", "Last message", "Errors", "Firmware / mode", ""]
        .map((h) => el("th", {}, h)))),
      body = el("tbody", {}))));
  const watch = el("section", { id: "bias" });
  main.append(watch);
  render(await api("/devices"));
  live("devices=1", (msg) => { if (msg.type === "devices") render(msg.devices); });
  await renderBias(watch);
  setInterval(() => renderBias(watch).catch(() => {}), 15000);
}

if (document.body.classList.contains("tech")) start();
