// Ball draw machine and ball reader: the ball-set check (the table's opening check: every ball of the set read
// once; which were read, missing, duplicated, unknown) and the machine's Modbus state, live.
import { ROOT, clear, el, timeOf, toast } from "../common.js";
import { missingNote } from "./generic.js";

const YES = (v) => (v === null || v === undefined ? "\u2014" : v ? "yes" : "no");

export function render(container, ctx) {
  let data = ctx.page || {};
  const check = el("section", { id: "ballset-check" });
  const machine = el("section", { id: "ball-machine" });

  function drawCheck() {
    const oc = data.opening_check || {};
    const report = oc.report || null;
    const status = oc.running ? ["warn", "Check running"] : oc.passed ? ["ok", "Check passed"]
      : report ? ["bad", "Check failed"] : ["bad", "Check needed"];
    clear(check).append(el("h2", {}, "Ball-set check"),
      el("div", { class: "row" }, el("span", { class: `pill ${status[0]}`, id: "check-status" }, status[1]),
        oc.required === false ? el("span", { class: "muted" }, "(turned off for this table)") : null),
      el("p", { id: "check-message", class: "big-text" }, report ? report.message
        : "Not run since the studio started. Run the check, present every ball of the set to the reader once, then finish it."));
    const buttons = el("div", { class: "row" });
    if (oc.running) {
      buttons.append(el("button", { type: "button", class: "go big", id: "check-finish", onclick: () => act("finish_opening_check") },
        "Finish opening check"));
    } else {
      buttons.append(el("button", { type: "button", class: "primary big", id: "check-start", onclick: () => act("start_opening_check") },
        oc.passed ? "Check again" : "Run opening check"));
    }
    check.append(buttons);
    if (report) {
      const rows = [["Read", `${report.read} of ${report.expected}`], ["Missing", report.missing], ["Duplicated", report.duplicated],
        ["Unknown tags", report.unknown_tags], ["Not in this game", report.not_in_game], ["Wrong colour", report.wrong_color],
        ["No-reads", String(report.unreadable)]];
      check.append(el("dl", { class: "kv", id: "check-report" }, rows.flatMap(([k, v]) => [el("dt", {}, k),
        el("dd", { id: `report-${k.toLowerCase().replace(/[^a-z]+/g, "-")}` },
          Array.isArray(v) ? (v.length ? v.join(", ") : "none") : v)])));
    }
    // every ball of the game: read during the check, or not
    const seen = new Map();
    for (const r of data.reads || []) if (r.kind === "ball_read" && r.ball) seen.set(r.ball, (seen.get(r.ball) || 0) + 1);
    const grid = el("div", { class: "balls ballset", id: "ballset-grid" });
    for (const b of data.balls || []) {
      const n = seen.get(b) || 0;
      grid.append(el("div", { class: `ball ${n === 1 ? "seen" : n > 1 ? "twice" : "unseen"}`, "aria-label": `ball ${b}: ${n ? "read " + n + "x" : "not read"}` }, b));
    }
    check.append(el("h3", { style: "margin-top:10px" }, data.check_started_at
      ? `Reads since the check started at ${timeOf(data.check_started_at)}` : "Reads (the device log)"), grid);
    const list = el("ul", { class: "live-list", id: "ballset-reads" });
    for (const r of (data.reads || []).slice().reverse().slice(0, 60)) {
      list.append(el("li", {}, el("span", { class: "at" }, timeOf(r.at)), r.kind === "ball_read"
        ? `ball ${r.ball ?? "not in the ball set"} (tag ${r.tag}${r.color ? ", " + r.color : ""})` : `no read: ${r.reason}`));
    }
    check.append(list);
  }

  function drawMachine() {
    const m = data.machine;
    clear(machine).append(el("h2", { style: "margin-top:14px" }, "Draw machine (Modbus)"));
    if (!m) { machine.append(el("p", { class: "muted" }, "This table has no Modbus draw machine.")); return; }
    const st = m.state || {};
    machine.append(el("div", { class: "row" }, el("span", { class: `pill ${m.connected ? "ok" : "bad"}` }, m.connected ? "Connected" : "Not connected"),
      el("span", { class: "mono" }, `${m.target || ""} \u00b7 map ${m.register_map || "?"}`)),
    el("dl", { class: "kv", id: "machine-state" },
      el("dt", {}, "State"), el("dd", { id: "machine-state-name" }, st.state ?? "\u2014"),
      el("dt", {}, "Blower"), el("dd", {}, YES(st.blower)),
      el("dt", {}, "Gate open"), el("dd", {}, YES(st.gate)),
      el("dt", {}, "Ball in chute"), el("dd", {}, YES(st.ball_in_chute)),
      el("dt", {}, "Balls released (counter)"), el("dd", {}, st.balls_released ?? "\u2014"),
      el("dt", {}, "Balls in machine"), el("dd", {}, st.balls_in_machine ?? "\u2014"),
      el("dt", {}, "Fault"), el("dd", { id: "machine-fault" }, st.fault_code ? `${st.fault_code}: ${st.fault}` : "none"),
      el("dt", {}, "Last poll"), el("dd", {}, `${timeOf(m.last_poll_at) || "\u2014"}${m.last_round_trip_us ? ` (${(m.last_round_trip_us / 1000).toFixed(1)} ms)` : ""}`),
      el("dt", {}, "Counters"), el("dd", { class: "counters" }, Object.entries(m.counters || {}).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(", ")),
      el("dt", {}, "Last error"), el("dd", {}, m.last_error || "none")));
    if (ctx.family.commands.length && m.device_id === `${ctx.tableId}/${ctx.role}`) {
      machine.append(el("div", { class: "row" },
        el("button", { type: "button", id: "machine-start_blower", onclick: () => ctx.send("start_blower") }, "Start blower"),
        el("button", { type: "button", id: "machine-stop_blower", onclick: () => ctx.send("stop_blower") }, "Stop blower"),
        el("button", { type: "button", class: "primary", id: "machine-release_ball", onclick: () => ctx.send("release_ball") }, "Release one ball"),
        el("button", { type: "button", class: "danger", id: "machine-reset_fault", onclick: () => ctx.send("reset_fault") }, "Reset fault")));
    } else {
      const [t, role] = m.device_id.split("/");
      machine.append(el("a", { class: "button", href: `${ROOT}/tech/${encodeURIComponent(t)}/${encodeURIComponent(role)}` }, "The machine's page (commands)"));
    }
    const r = data.reader;
    if (r) {
      machine.append(el("h3", { style: "margin-top:10px" }, "Reader"),
        el("p", {}, `${r.kind} \u00b7 ${r.connected ? "connected" : "not connected"} \u00b7 ball set ${r.ball_set || "?"}`),
        el("p", { class: "counters" }, Object.entries(r.counters || {}).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(", ")));
    }
    const missing = missingNote(data.missing);
    if (missing) machine.append(missing);
  }

  async function act(action) {
    try {
      const res = await ctx.act(action);
      if (action === "finish_opening_check" && res.result) toast(res.result.message, res.result.ok ? "good" : "bad", 10000);
    } catch (e) { toast(e.message, "bad"); }
    await refresh();
  }

  container.append(check, machine);
  drawCheck();
  drawMachine();
  let last = 0;
  async function refresh() {
    last = Date.now();
    try { data = (await ctx.refresh()) || data; drawCheck(); drawMachine(); } catch (e) { /* next update */ }
  }
  return {
    event(entry) { if (/^ball_/.test(entry.kind) || entry.kind === "command") refresh(); },
    update() { if (Date.now() - last > 1000) refresh(); },
  };
}
