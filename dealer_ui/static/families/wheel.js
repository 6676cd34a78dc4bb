// Roulette wheel (Cammegh SS2): identity, the *T settings (read, change, save to flash), power, test spin,
// self-test, statistics, sensor calibration, and a command line. Answers come back as the wheel's replies
// in the device log; the settings table fills itself from them.
import { clear, el } from "../common.js";
import { commandLine } from "./generic.js";

export function render(container, ctx) {
  const settings = ctx.family.page_data.settings || [];
  const current = {};
  const cells = {};
  const selfTest = el("ul", { class: "live-list", id: "self-test-answers" });
  const testSpin = el("div", { id: "test-spin-box" });
  const lastTest = el("p", { id: "test-spin-result", class: "caption" });

  // A test spin is offered only while the table is in maintenance (then nothing is published); outside it, the
  // command line can still send *K after the server's strong warning: it is a real game for the players.
  function renderTestSpin(m) {
    const on = !!(m && m.on);
    clear(testSpin).append(
      el("p", { id: "test-spin-warning" }, on
        ? "The table is in maintenance: the wheel spins, the studio journals what the judge sees and publishes " +
          "nothing. The number appears below and on the dealer's screen."
        : "A test spin outside maintenance is a real game: the table opens a round and publishes its result to " +
          "the players. Turn maintenance mode on (above) to test-spin."),
      el("div", { class: "row" },
        el("button", { type: "button", class: "primary", id: "test-spin", disabled: !on,
          onclick: () => ctx.send("*K") }, "Test spin"),
        el("button", { type: "button", id: "test-spin-cw", disabled: !on, onclick: () => ctx.send("*u 1") },
          "Clockwise"),
        el("button", { type: "button", id: "test-spin-acw", disabled: !on, onclick: () => ctx.send("*u 3") },
          "Anti-clockwise")),
      lastTest);
  }

  function readReply(entry) {
    if (entry.kind === "wheel_reply" && entry.data.command === "T") {
      const m = /^([a-z]) (.+)$/.exec(entry.data.text);
      if (m && cells[m[1]]) { current[m[1]] = m[2]; cells[m[1]].textContent = m[2]; }
    }
    if (entry.kind === "maintenance_decision") lastTest.textContent = entry.summary;
    if ((entry.kind === "wheel_warning" || entry.kind === "wheel_fault") && entry.data.self_test) {
      const code = entry.data.vendor_code ? `${entry.data.vendor_code} (${entry.data.code})` : entry.data.code;
      selfTest.prepend(el("li", {}, `${code}: ${entry.data.description}`));
    }
  }

  const rows = settings.map((s) => {
    const input = el("input", { id: `set-${s.letter}`, class: "mono", inputmode: "decimal", autocomplete: "off",
      "aria-label": `${s.name} new value`, placeholder: s.default });
    cells[s.letter] = el("td", { class: "mono", id: `cur-${s.letter}` }, "\u2014");
    return el("tr", {},
      el("td", {}, el("strong", {}, s.name), el("div", { class: "counters" }, `*T ${s.letter}${s.unit ? " \u00b7 " + s.unit : ""}`)),
      cells[s.letter],
      el("td", {}, input),
      el("td", {}, el("div", { class: "row" },
        el("button", { type: "button", onclick: () => ctx.send(`*T ${s.letter.toUpperCase()}`) }, "Read"),
        el("button", { type: "button", class: "primary", onclick: () => {
          const v = input.value.trim().replace(/\s+/g, " ");
          if (v) ctx.send(`*T ${s.letter} ${v}`);
        } }, "Set"))));
  });

  container.append(
    el("h2", {}, "Roulette wheel"),
    el("div", { class: "row" },
      el("button", { type: "button", id: "read-identity", onclick: async () => {
        for (const c of ["*S", "*V", "*v", "*o"]) await ctx.send(c, true);
      } }, "Read firmware and mode"),
      el("button", { type: "button", id: "read-all", onclick: async () => {
        for (const s of settings) await ctx.send(`*T ${s.letter.toUpperCase()}`, true);
      } }, "Read all settings"),
      el("button", { type: "button", class: "danger", id: "save-flash", onclick: () => ctx.send("*T f") },
        "Save settings to flash")),
    el("h3", { style: "margin-top:12px" }, "Settings"),
    el("table", { class: "devices settings", id: "wheel-settings" },
      el("thead", {}, el("tr", {}, ["Setting", "Wheel says", "New value", ""].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows)),
    el("h3", { style: "margin-top:12px" }, "Wheel"),
    el("div", { class: "row" },
      el("button", { type: "button", id: "power-on", onclick: () => ctx.send("*P 1") }, "Power on"),
      el("button", { type: "button", class: "danger", id: "power-off", onclick: () => ctx.send("*P 0") }, "Power off"),
      el("button", { type: "button", class: "danger", id: "reset", onclick: () => ctx.send("*R") }, "Reset"),
      el("button", { type: "button", id: "stats", onclick: async () => { await ctx.send("*W"); await ctx.send("*M"); } },
        "Statistics")),
    el("h3", { style: "margin-top:12px" }, "Test spin"),
    el("p", {}, "In manual-start mode the wheel spins on command."),
    testSpin,
    el("h3", { style: "margin-top:12px" }, "Self-test and calibration"),
    el("p", {}, ctx.family.self_test_warning),
    el("div", { class: "row" },
      el("button", { type: "button", class: "primary", id: "self-test", onclick: () => ctx.selfTest() }, "Run self-test"),
      el("button", { type: "button", id: "calibrate", onclick: () => ctx.send("*C") }, "Calibrate sensors (ball in 0)"),
      el("button", { type: "button", id: "firing", onclick: () => ctx.send("*T c 20000") }, "Take firing position")),
    el("h3", { style: "margin-top:12px" }, "Self-test answers"), selfTest,
    el("h3", { style: "margin-top:12px" }, "Command"),
    commandLine(ctx, { label: "Any wheel command the console allows", placeholder: "*T N" }));

  renderTestSpin(ctx.maintenance ? ctx.maintenance() : null);
  for (const entry of [...ctx.log].reverse()) readReply(entry);
  return { event: readReply, maintenance: renderTestSpin };
}
