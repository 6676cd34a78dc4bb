// The dealer's screen: one table, its round, what the devices read, and the choices the rules allow now.
// Everything shown comes from the table's view (the server's snapshot); the buttons are the server's
// `choices`, so the screen never offers what the studio would refuse.
import {
  ApiError, ROOT, api, approvalBox, can, clear, dialogButtons, el, header, live, modal, requireMe, timeOf, toast,
} from "./common.js";
import { cardNode, eventWords, renderResult, renderRoundEvents, resultText } from "./render.js";
import { deviceFailedBox, renderLateReadings, resolveParts } from "./late_readings.js";
import { shiftControl } from "./shift.js";

const main = document.getElementById("main");
const tableId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
let meta = null;
let view = null;
let clockOffset = 0; // server time - local time, ms
const parts = {};

const PHASES = {
  betting_open: "Betting open",
  betting_closed: "Betting closed",
  in_play: "No more bets",
  result_pending: "Checking result",
  certified: "Result",
  voided: "Round void",
};

function layout() {
  clear(main);
  parts.state = el("section", { class: "panel", id: "state", "aria-label": "round" });
  parts.notice = el("section", { class: "panel hidden", id: "notice", role: "alert" });
  parts.judge = el("section", { class: "panel hidden", id: "judge", "aria-label": "what the game waits for", "aria-live": "polite" });
  parts.result = el("section", { class: "panel", id: "result", "aria-label": "result" });
  parts.live = el("section", { class: "panel", id: "live", "aria-label": "devices live" });
  parts.late = el("section", { class: "panel hidden", id: "late-readings", "aria-label": "late device readings" });
  parts.actions = el("section", { class: "panel", id: "actions", "aria-label": "actions" });
  parts.devices = el("section", { class: "panel", id: "devices", "aria-label": "devices" });
  parts.recent = el("section", { class: "panel", id: "recent", "aria-label": "recent rounds" });
  parts.events = el("section", { class: "panel", id: "events", "aria-label": "messages" });
  main.append(
    el("div", { class: "left" }, parts.state, parts.judge, parts.notice, parts.result, parts.late, parts.live),
    el("div", { class: "right" }, parts.actions, parts.devices, parts.recent, parts.events));
}

function ctx() {
  return { game: meta.game, family: meta.families[0] ? meta.families[0].id : "generic" };
}

function wheelPhase() {
  const dev = (view.devices || []).find((d) => d.phase);
  return dev ? dev.phase : null;
}

function phaseKey() {
  const r = view.round;
  if (view.status === "paused") return "paused";
  if (!r) return "none";
  if (["betting_open", "betting_closed", "in_play", "result_pending"].includes(r.state) && r.holds.length) return "held";
  return r.state;
}

function renderState() {
  const r = view.round;
  const key = phaseKey();
  const title = view.maintenance && view.maintenance.on ? "Maintenance" : key === "paused" ? "Table paused" : key === "held" ? "Round held" : key === "none"
    ? "Waiting for the first round" : PHASES[r.state];
  const device = wheelPhase();
  const sub = device ? `${device.title}. ${device.text}` : view.pacing === "dealer" && r && r.state === "betting_open"
    ? "Betting closes in" : "";
  clear(parts.state).append(
    el("div", { class: "round-line" },
      el("h2", {}, r ? `Round ${r.round_number}` : "No round"),
      el("span", { class: "muted" }, r ? `opened ${timeOf(r.opened_at)}` : "")),
    el("div", { class: `phase ${key}`, id: "phase", "data-state": r ? r.state : "none" }, title),
    el("div", { class: "sub", id: "phase-detail" }, sub),
    el("div", { id: "countdown", "aria-live": "off" }));
  tick();
}

/** Where the next card goes and which players' decisions the game waits for (the judge's view), big. */
function renderJudge() {
  const j = view.judge;
  const show = j && (j.next || (j.awaiting && j.awaiting.length));
  parts.judge.classList.toggle("hidden", !show);
  clear(parts.judge);
  if (!show) return;
  if (j.next) parts.judge.append(el("div", { class: "judge-next", id: "judge-next" }, `Next card: ${j.next.label}`));
  if (j.awaiting && j.awaiting.length) {
    const list = el("div", { class: "judge-awaiting", id: "judge-awaiting" }, el("div", { class: "judge-title" }, "Waiting for players:"));
    j.awaiting.forEach((w, i) => {
      const seat = /^\d+$/.test(w.seat) ? `seat ${w.seat}` : w.seat.replace(/_/g, " ");
      const hand = w.hand !== null && w.hand !== undefined ? ` hand ${w.hand}` : "";
      const allowed = w.allowed.length ? ` (${w.allowed.join("/")})` : "";
      list.append(el("div", { class: "judge-wait", id: `judge-wait-${i}` },
        `${seat}${hand}${allowed}`, el("span", { class: "judge-left", "data-deadline": w.deadline || "" }),
        w.default ? el("span", { class: "judge-default" }, ` · no answer: ${w.default}`) : null));
    });
    parts.judge.append(list);
  }
  tickJudge();
}

function tickJudge() {
  for (const span of document.querySelectorAll("#judge .judge-left")) {
    const deadline = span.dataset.deadline;
    if (!deadline) { span.textContent = ""; continue; }
    const left = Math.max(0, Math.ceil((Date.parse(deadline) - (Date.now() + clockOffset)) / 1000));
    span.textContent = `, ${left} s`;
  }
}

function tick() {
  tickJudge();
  if (view && parts.result && parts.result.dataset.round !== ((resultRound() || {}).round_id || "")) renderResultPanel();
  const box = document.getElementById("countdown");
  if (!box || !view) return;
  const r = view.round;
  if (view.betting_closes_at && r && r.state === "betting_open") {
    const left = Math.max(0, Math.ceil((Date.parse(view.betting_closes_at) - (Date.now() + clockOffset)) / 1000));
    box.textContent = String(left);
    box.classList.toggle("low", left <= 5);
  } else if (r && r.state === "betting_open") {
    const open = Math.max(0, Math.floor((Date.now() + clockOffset - Date.parse(r.opened_at)) / 1000));
    box.textContent = "";
    box.append(el("span", { class: "muted", style: "font-size:2rem" }, `open for ${open} s`));
  } else {
    box.textContent = "";
  }
}

function renderNotice() {
  const n = view.notice;
  const show = n && n.title && n.level !== "ok" || (n && n.level === "ok" && n.lines.length);
  parts.notice.className = `panel ${n.level}` + (show ? "" : " hidden");
  clear(parts.notice).append(el("div", { class: "title", id: "notice-title" }, n.title),
    ...n.lines.map((line) => el("p", {}, line)));
}

//: the result of a round stays on screen at least this long, even when the next round opens sooner
const RESULT_HOLD_MS = 5000;
let shownResult = null; // {round, since}: the final round whose result is on screen

/** The round whose result the panel shows: the current one, or the last final round until the next round opens
 * betting, and then for what is left of its RESULT_HOLD_MS on screen (unless the new round has a result). */
function resultRound() {
  const r = view.round;
  if (r && ["certified", "voided"].includes(r.state)) {
    if (!shownResult || shownResult.round.round_id !== r.round_id) shownResult = { round: r, since: Date.now() };
    else shownResult.round = r;  // a correction: the same round, a new version
    return r;
  }
  if (shownResult && (!r || r.round_id !== shownResult.round.round_id)) {
    // a round other than the one shown has opened betting: the old result stays its RESULT_HOLD_MS
    const held = Date.now() - shownResult.since < RESULT_HOLD_MS;
    if (!r || (held && !r.result)) return shownResult.round;
  }
  return r;
}

function renderResultPanel() {
  const r = resultRound();
  const held = r && view.round && r.round_id !== view.round.round_id;
  parts.result.dataset.round = r ? r.round_id : "";
  parts.result.classList.toggle("previous", !!held);
  clear(parts.result).append(el("h2", { id: "result-title" },
    held ? `Result of round ${r.round_number} (round ${view.round.round_number} is open)` : "Result"));
  if (r && r.state === "voided") {
    parts.result.append(el("div", { class: "result" }, el("div", { class: "caption", id: "void-code" },
      `Void (${r.void_code})`)));
  } else {
    parts.result.append(renderResult(r ? r.result : null, ctx()));
    if (r && r.state === "certified") {
      // the current round's pill is #certified; the previous round's, still on screen, is not
      parts.result.append(el("div", { class: "pill ok", id: held ? "previous-certified" : "certified" },
        r.version > 1 ? `Certified, corrected (v${r.version})` : "Certified"));
    } else if (r && r.result) {
      parts.result.append(el("div", { class: "pill warn" }, "Not certified yet"));
    }
  }
  if (!held && shownResult && r && r.round_id !== shownResult.round.round_id) {
    const last = shownResult.round;
    parts.result.append(el("p", { class: "muted", id: "last-result" },
      `Last result, round ${last.round_number}: ${last.state === "voided" ? "void" : resultText(last.result)}`));
  }
  if (view.extras && !held) {  // computer-drawn values (lightning numbers, multipliers), shown once betting has closed
    parts.result.append(el("h2", { style: "margin-top:10px" }, "Drawn by the studio"),
      renderResult(view.extras, { ...ctx(), game: null }));
  }
}

function renderLive() {
  clear(parts.live).append(el("h2", {}, "Devices read"));
  const device = wheelPhase();
  if (device) {
    const speed = device.speed_rpm !== null && device.speed_rpm !== undefined ? `${device.speed_rpm} rpm` : "";
    parts.live.append(el("p", { id: "wheel-live" },
      `Wheel: ${device.title}${speed ? `, ${speed}` : ""}${device.direction ? `, ${device.direction}` : ""}` +
      (device.flags && device.flags.length ? `, warnings: ${device.flags.join(", ")}` : "")));
  }
  const c = { ...ctx(), round: view.round };
  parts.live.append(renderRoundEvents(view.round_events || [], c));
  const list = el("ul", { class: "live-list", id: "device-events" });
  const shown = (view.round_events || []).map((e) => [e, eventWords(e, c)]).filter(([, text]) => text);
  for (const [e, text] of shown.slice(-8).reverse()) {
    list.append(el("li", {}, el("span", { class: "at" }, timeOf(e.at)), text));
  }
  parts.live.append(list);
}

function renderActions() {
  clear(parts.actions).append(el("h2", {}, "Actions"));
  const box = el("div", { class: "buttons" });
  for (const c of view.choices) {
    const cls = c.danger ? "danger big" : ["open_round", "start_game", "close_betting"].includes(c.id) ? "go big"
      : "primary big";
    box.append(el("button", {
      type: "button", class: cls, id: `action-${c.id}${c.code ? "-" + c.code : ""}`, dataset: { choice: c.id },
      onclick: () => act(c),
    }, c.label, c.needs_approval ? el("span", { class: "note" }, "with a supervisor") : null));
  }
  const m = view.maintenance;
  if (m && m.on && can("deal")) {
    // the table is in maintenance: the round buttons are off, with the reason
    const label = view.pacing === "dealer" ? "Open betting" : "Start spin";
    box.append(el("button", { type: "button", class: "big", id: "action-maintenance-disabled", disabled: true },
      label), el("p", { class: "none", id: "maintenance-reason" },
      `Table in maintenance: ${m.reason} (${m.by}). No round opens until a technician turns it off.`));
  } else if (!view.choices.length) {
    box.append(el("p", { class: "none" }, "Nothing to do at this table for your role."));
  }
  parts.actions.append(box);
  if (m && m.pending && !m.on) parts.actions.append(maintenancePending(m.pending));
}

/** Maintenance asked for while a round is open: it comes on when the round ends (studio/maintenance.py). */
function maintenancePending(p) {
  return el("p", { class: "pill warn", id: "maintenance-pending" },
    `Maintenance asked for by ${p.by} (${p.reason}): the table goes into maintenance when round ` +
    `${p.round_number} ends. No new round opens.`);
}

function renderDevices() {
  clear(parts.devices).append(el("h2", {}, "Devices"));
  for (const d of view.devices) {
    parts.devices.append(el("div", { class: "row" },
      el("span", { class: `pill ${d.connected ? "ok" : "bad"}` }, d.connected ? "Connected" : "Not connected"),
      el("span", {}, `${d.role} \u00b7 ${d.kind || "device"}`)));
  }
  if (view.status === "paused") parts.devices.append(el("p", {}, view.paused_reason));
}

function renderRecent() {
  clear(parts.recent).append(el("h2", {}, "Recent rounds"));
  const strip = el("div", { class: "recent", id: "recent-strip" });
  for (const r of (view.recent_rounds || []).slice(0, 12)) {
    const color = r.result && r.result.color ? r.result.color : "";
    const text = r.state === "voided" ? `void${r.void_code ? ` (${r.void_code.replace(/_/g, " ")})` : ""}` : resultText(r.result);
    strip.append(el("div", { class: `chip ${r.state === "voided" ? "void" : color}`, title: `Round ${r.round_number}` },
      el("span", { class: "chip-round" }, `#${r.round_number}`), el("span", { class: "chip-text" }, text)));
  }
  parts.recent.append(strip);
}

function renderEvents() {
  clear(parts.events).append(el("h2", {}, "Messages"));
  const list = el("ul", { class: "live-list", id: "table-events" });
  for (const e of view.events || []) {
    const text = e.what === "incident" ? `Incident (${e.category}) by ${e.by}: ${e.text}`
      : e.what === "status" ? `Table ${e.state}${e.reason ? ": " + e.reason : ""}` : e.message || e.code;
    list.append(el("li", {}, el("span", { class: "at" }, timeOf(e.at)), text));
  }
  parts.events.append(list);
}

function render() {
  renderState();
  renderJudge();
  renderNotice();
  renderResultPanel();
  renderLateReadings(parts.late, view);
  renderLive();
  renderActions();
  renderDevices();
  renderRecent();
  renderEvents();
}

function setView(v) {
  view = v;
  clockOffset = Date.parse(v.server_time) - Date.now();
  render();
  checkOpenDialog();
}

/** A dialog opened for a round that has since moved on says so, and its button stops working. */
function checkOpenDialog() {
  const d = document.querySelector("dialog[open][data-choice]");
  if (!d) return;
  const choice = view.choices.find((c) => c.id === d.dataset.choice);
  const sameRound = !d.dataset.round || (view.round && view.round.round_id === d.dataset.round);
  const submit = d.querySelector("#dialog-submit");
  let stale = d.querySelector(".stale");
  if (!choice || !sameRound) {
    if (!stale) {
      stale = el("div", { class: "error stale", role: "alert" },
        "The round has moved on: this is no longer possible. Cancel and look at the table again.");
      d.insertBefore(stale, d.children[1]);
    }
    if (submit) submit.disabled = true;
    return;
  }
  if (stale) stale.remove();
  if (submit) submit.disabled = false;
  const approval = d.querySelector(".approval");
  if (voidStartedInBetting(d)) { showStartedInBetting(d); return; }
  if (approval && choice.needs_approval) approval.classList.remove("hidden");  // e.g. betting closed meanwhile
}

/** A void the dealer started while betting was open: the server judges it by that state (no supervisor), even
 * when the betting timer closed betting while the dialog was open (actions.py `_void_started_in_betting`). */
function voidStartedInBetting(d) {
  const r = view.round;
  return d.dataset.choice === "void" && d.dataset.seenState === "betting_open" && !!r
    && r.round_id === d.dataset.round && ["betting_closed", "in_play"].includes(r.state) && !r.result
    && view.pacing === "dealer" && !d.dataset.needsApproval;
}

function showStartedInBetting(d) {
  if (d.querySelector("#void-started")) return;
  const note = el("p", { class: "caption", id: "void-started", role: "status" },
    "Betting closed after you pressed Void: the void counts as started during betting (no supervisor) and is " +
    "recorded so.");
  const form = d.querySelector("form");
  d.insertBefore(note, form);
}

/** Tie an open dialog to the choice (and the round) it was opened for. */
function bind(dialog, choice, roundBound = true) {
  dialog.dataset.choice = choice.id;
  if (roundBound && view.round) dialog.dataset.round = view.round.round_id;
  return dialog;
}

// --- actions ----------------------------------------------------------------------------------------------

async function post(choice, body = {}) {
  const res = await api(`/tables/${encodeURIComponent(tableId)}/actions/${choice.id}`, { method: "POST", body });
  if (res.view) setView(res.view);
  return res;
}

async function act(c) {
  if (["open_round", "close_betting", "start_game", "retry", "start_opening_check"].includes(c.id)) {
    try { await post(c); } catch (e) { toast(e.message, "bad"); }
    return;
  }
  if (c.id === "finish_opening_check") {
    try {
      const res = await post(c);
      toast(res.result && res.result.message ? res.result.message : "Opening check finished.",
        res.result && res.result.ok ? "good" : "bad", 10000);
    } catch (e) { toast(e.message, "bad"); }
    return;
  }
  if (c.id === "void") return voidDialog(c);
  if (c.id === "manual_result") return resultDialog(c, "Enter the result by hand", null);
  if (c.id === "correct") {
    return resultDialog(c, "Correct a certified result", (view.recent_rounds || []).filter((r) => r.state === "certified"));
  }
  if (c.id === "incident") return incidentDialog(c);
  if (c.id === "resolve_reading") {
    return bind(modal("Settle a late device reading", (d, ui) => {
      const makeBody = resolveParts(d, view, c, choiceButtons);
      const approval = approvalBox("Settling a late device reading");
      d.append(approval.node);
      submitWithApproval(d, ui, c, approval, () => makeBody(ui), "Settle the reading");
    }), c, false);
  }
  if (c.id === "release") return confirmDialog(c, "Confirm and continue",
    "Confirm that the problem is solved. The round then goes on and its result can be certified.", { code: c.code });
  if (c.id === "shoe_change") return confirmDialog(c, "Shoe change",
    "Record a shoe change: the old shoe is finished and a new shuffled shoe is in place.", {});
}

function choiceButtons(items, onPick, prefix, initial = null) {
  const box = el("div", { class: "choices", role: "group" });
  const buttons = items.map((it) => el("button", {
    type: "button", id: `${prefix}-${it.code}`, class: it.code === initial ? "selected" : "",
    "aria-pressed": it.code === initial ? "true" : "false",
    onclick: (ev) => {
      buttons.forEach((b) => { b.classList.remove("selected"); b.setAttribute("aria-pressed", "false"); });
      ev.currentTarget.classList.add("selected");
      ev.currentTarget.setAttribute("aria-pressed", "true");
      onPick(it.code);
    },
  }, it.label));
  box.append(...buttons);
  return box;
}

function submitWithApproval(d, ui, choice, approval, makeBody, label, onNeedsApproval = null) {
  const submit = el("button", { type: "submit", class: choice.danger ? "danger big" : "primary big", id: "dialog-submit" },
    label);
  const cancel = el("button", { type: "button", class: "big", id: "dialog-cancel", onclick: () => ui.close() }, "Cancel");
  const form = el("form", { method: "dialog" });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = makeBody();
    if (!body) return;
    const a = approval ? approval.value() : null;
    if (a) body.approval = a;
    submit.disabled = true;
    try {
      await post(choice, body);
      ui.close();
      toast(`${label}: done.`, "good");
    } catch (e) {
      if (e instanceof ApiError && e.data.needs_approval && approval) {
        approval.show(true);
        if (onNeedsApproval) onNeedsApproval();
      }
      if (approval) approval.reset();
      ui.fail(e.message);
    } finally {
      submit.disabled = false;
    }
  });
  form.append(dialogButtons(cancel, submit));
  d.append(form);
}

function voidDialog(c) {
  const seen = view.round ? { seen_round_id: view.round.round_id, seen_state: view.round.state } : {};
  const dialog = bind(modal("Void the round", (d, ui) => {
    let code = null;
    const note = el("textarea", { id: "void-note", maxlength: "500" });
    const approval = approvalBox("A void after betting closed");
    approval.show(c.needs_approval);
    d.append(el("p", {}, "All bets of the round are returned. Choose the reason:"),
      choiceButtons(meta.void_reasons.map((r) => ({ code: r.code, label: r.code.replace(/_/g, " ") })),
        (x) => { code = x; ui.ok(); }, "reason"),
      el("label", { for: "void-note" }, "Note (needed for 'other')"), note, approval.node);
    submitWithApproval(d, ui, c, approval, () => {
      if (!code) { ui.fail("Choose a reason."); return null; }
      return { code, note: note.value, ...seen };
    }, "Void round", () => { d.dataset.needsApproval = "1"; const n = d.querySelector("#void-started"); if (n) n.remove(); });
  }), c);
  dialog.dataset.seenState = seen.seen_state || "";
}

function resultInput(d) {
  const form = meta.result_form;
  if (form.type === "pockets") {
    const count = form.count || 1;
    let chosen = [];
    const shown = el("div", { class: "caption", id: "chosen-number" }, count === 1 ? "No number chosen"
      : `Choose ${count} numbers`);
    const pad = el("div", { class: "pad", id: "number-pad" });
    const buttons = form.pockets.map((p) => el("button", { type: "button", class: form.colors[p], id: `pocket-${p}`,
      onclick: () => {
        chosen = count === 1 || chosen.length >= count ? [p] : chosen.concat([p]);
        buttons.forEach((b) => b.classList.toggle("selected", chosen.includes(b.textContent)));
        shown.textContent = count === 1 ? `Number ${p} (${form.colors[p]})`
          : `Numbers: ${chosen.map((x) => `${x} (${form.colors[x]})`).join(", ")}`;
      } }, p));
    pad.append(...buttons);
    d.append(el("label", {}, count === 1 ? "Winning number" : `Winning numbers (${count})`), pad, shown);
    return () => (chosen.length !== count ? null : { [form.field]: count === 1 ? chosen[0] : [...chosen] });
  }
  if (form.type === "cards") {
    const dealt = [];
    const shown = el("div", { class: "cards", id: "chosen-cards", "aria-live": "polite" });
    const redraw = () => {
      clear(shown);
      if (!dealt.length) shown.append(el("span", { class: "muted" }, "No card chosen: tap the cards in the order they were dealt."));
      dealt.forEach((c, i) => shown.append(el("div", { class: "position" }, el("div", { class: "label" }, `#${i + 1}`),
        cardNode(c))));
    };
    const pad = el("div", { class: "pad", id: "card-pad" });
    for (const suit of form.suits) {
      for (const rank of form.ranks) {
        const code = rank + suit;
        pad.append(el("button", { type: "button", id: `card-${code}`, class: "H D".includes(suit) ? "red" : "black",
          onclick: () => { dealt.push(code); redraw(); } }, cardNode(code).textContent));
      }
    }
    redraw();
    d.append(el("label", {}, "Cards in the order they were dealt"), pad,
      el("div", { class: "row" },
        el("button", { type: "button", id: "card-undo", onclick: () => { dealt.pop(); redraw(); } }, "Undo last card"),
        el("button", { type: "button", id: "card-clear", onclick: () => { dealt.length = 0; redraw(); } }, "Clear")),
      shown);
    return () => (dealt.length ? { [form.field]: [...dealt] } : null);
  }
  if (form.type === "dice") return diceInput(d, form);
  if (form.type === "balls") return ballsInput(d, form);
  const text = el("textarea", { id: "result-json", spellcheck: "false", class: "mono" },
    JSON.stringify(form.example || {}, null, 1));
  d.append(el("label", { for: "result-json" }, "Result (JSON, checked by the game's rules)"), text);
  return () => { try { return JSON.parse(text.value); } catch (e) { return undefined; } };
}

const DIE_FACES = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];

/** A die pad per die of each group (Dice Duel: the red and the blue die; Bac Bo: the player's and the banker's
 * pair), and craps' point: tap the face each die shows. */
function diceInput(d, form) {
  const chosen = {};
  const shown = el("div", { class: "caption", id: "chosen-dice", "aria-live": "polite" });
  let point;  // craps: undefined until chosen, null for a come-out roll
  const describe = () => {
    const parts = form.groups.map((g) => `${g.label}: ${Array.from({ length: g.count }, (_, i) => chosen[`${g.field}-${i}`] ?? "?").join(" ")}`);
    if (form.point) parts.push(`point ${point === undefined ? "?" : point === null ? "none (come-out)" : point}`);
    shown.textContent = parts.join(" \u00b7 ");
  };
  for (const g of form.groups) {
    const box = el("div", { class: "dice-group" + (g.color ? ` die-${g.color}` : ""), id: `dice-${g.field}` },
      el("div", { class: "label" }, g.color ? el("span", { class: `swatch ${g.color}`, "aria-hidden": "true" }) : null, g.label));
    for (let i = 0; i < g.count; i += 1) {
      const key = `${g.field}-${i}`;
      const row = el("div", { class: "die-row", role: "group", "aria-label": `${g.label}${g.count > 1 ? " die " + (i + 1) : ""}` });
      const buttons = form.faces.map((f) => el("button", { type: "button", class: `die-btn${g.color ? " " + g.color : ""}`, id: `die-${key}-${f}`,
        "aria-label": `${g.label}${g.count > 1 ? " die " + (i + 1) : ""}: ${f}`, "aria-pressed": "false",
        onclick: () => {
          chosen[key] = f;
          buttons.forEach((b, j) => { b.classList.toggle("selected", j + 1 === f); b.setAttribute("aria-pressed", j + 1 === f ? "true" : "false"); });
          describe();
        } }, el("span", { class: "face" }, DIE_FACES[f]), el("span", { class: "num" }, String(f))));
      row.append(...buttons);
      box.append(row);
    }
    d.append(box);
  }
  if (form.point) {
    const row = el("div", { class: "choices", role: "group", id: "craps-point" });
    const buttons = form.point.choices.map((p) => el("button", { type: "button", id: `point-${p === null ? "none" : p}`,
      onclick: (ev) => {
        point = p;
        buttons.forEach((b) => b.classList.remove("selected"));
        ev.currentTarget.classList.add("selected");
        describe();
      } }, p === null ? "No point (come-out)" : `Point ${p}`));
    row.append(...buttons);
    d.append(el("label", {}, form.point.label), row);
  }
  describe();
  d.append(shown);
  return () => {
    const result = {};
    for (const g of form.groups) {
      const faces = Array.from({ length: g.count }, (_, i) => chosen[`${g.field}-${i}`]);
      if (faces.some((x) => x === undefined)) return null;
      result[g.field] = g.single ? faces[0] : faces;
    }
    if (form.point) {
      if (point === undefined) return null;
      result[form.point.field] = point;
    }
    return result;
  };
}

/** The game's balls, tapped in the order they were drawn, sent as {"balls": [...]}. */
function ballsInput(d, form) {
  const drawn = [];
  const shown = el("div", { class: "balls", id: "chosen-balls", "aria-live": "polite" });
  const count = el("div", { class: "caption", id: "chosen-count" });
  const buttons = {};
  const redraw = () => {
    clear(shown);
    drawn.forEach((b, i) => shown.append(el("div", { class: "position" }, el("div", { class: "label" }, `#${i + 1}`),
      el("div", { class: "ball" + (form.colors[b] ? ` ball-${form.colors[b]}` : "") }, b))));
    if (!drawn.length) shown.append(el("span", { class: "muted" }, "No ball chosen: tap the balls in the order they were drawn."));
    count.textContent = `${drawn.length} ball${drawn.length === 1 ? "" : "s"} of ${form.draw_count}`;
    for (const [label, b] of Object.entries(buttons)) {
      b.disabled = drawn.filter((x) => x === label).length >= (form.counts[label] || 1) || drawn.length >= form.draw_count;
    }
  };
  const pad = el("div", { class: "pad ballpad", id: "ball-pad" });
  for (const label of form.labels) {
    buttons[label] = el("button", { type: "button", id: `ball-${label}`, class: form.colors[label] ? `ball-${form.colors[label]}` : "",
      onclick: () => { drawn.push(label); redraw(); } }, label);
    pad.append(buttons[label]);
  }
  d.append(el("label", {}, `Balls in the order they were drawn (the game draws ${form.draw_count})`), pad,
    el("div", { class: "row" },
      el("button", { type: "button", id: "ball-undo", onclick: () => { drawn.pop(); redraw(); } }, "Undo last ball"),
      el("button", { type: "button", id: "ball-clear", onclick: () => { drawn.length = 0; redraw(); } }, "Clear")),
    count, shown);
  redraw();
  return () => (drawn.length ? { [form.field]: [...drawn] } : null);
}

/** "Check": the game's own validate_result says whether it takes this result, before the supervisor signs. */
function checkButton(read) {
  const out = el("div", { id: "result-check-text", class: "caption", "aria-live": "polite" });
  const button = el("button", { type: "button", id: "result-check", onclick: async () => {
    const result = read();
    if (!result) { out.className = "error"; out.textContent = "Choose the result first."; return; }
    try {
      const res = await api(`/tables/${encodeURIComponent(tableId)}/check-result`, { method: "POST", body: { result } });
      out.className = "checked";
      out.textContent = `The game's rules accept it: ${resultText(res.result)}`;
    } catch (e) {
      out.className = "error";
      out.textContent = e.message;
    }
  } }, "Check with the game's rules");
  return el("div", { class: "row" }, button, out);
}

function resultDialog(c, title, rounds) {
  let chosen = rounds && rounds.length ? rounds[0].round_id : null;
  bind(modal(title, (d, ui) => {
    if (rounds) {
      d.append(el("p", {}, "Choose the round. The correction is published as a new version of its result."),
        choiceButtons(rounds.map((r) => ({ code: r.round_id, label: `Round ${r.round_number}: ${resultText(r.result)}` })),
          (x) => { chosen = x; }, "round", chosen));
    }
    const read = resultInput(d);
    if (["dice", "balls"].includes(meta.result_form.type)) d.append(checkButton(read));
    const reason = el("textarea", { id: "result-reason", maxlength: "500" });
    const approval = approvalBox(rounds ? "A correction" : "A result entered by hand");
    const failed = rounds ? null : deviceFailedBox(c);
    d.append(el("label", { for: "result-reason" }, "Why (recorded with the result)"), reason,
      ...(failed ? [failed.node] : []), approval.node);
    submitWithApproval(d, ui, c, approval, () => {
      const result = read();
      if (rounds && !chosen) { ui.fail("Choose the round."); return null; }
      if (!result) { ui.fail(result === undefined ? "The result is not valid JSON." : "Choose the result."); return null; }
      if (reason.value.trim().length < 3) { ui.fail("Say in a few words why."); return null; }
      const body = { result, reason: reason.value.trim() };
      if (rounds) body.round_id = chosen;
      const why = failed ? failed.value(ui) : null;
      if (why === undefined) return null;
      if (why) body.device_failed = why;
      return body;
    }, title);
  }), c, !rounds);
}

function incidentDialog(c) {
  modal("Report an incident", (d, ui) => {
    let category = null;
    const text = el("textarea", { id: "incident-text", maxlength: "2000" });
    d.append(choiceButtons(meta.incident_categories, (x) => { category = x; }, "incident"),
      el("label", { for: "incident-text" }, "What happened"), text);
    submitWithApproval(d, ui, c, null, () => {
      if (!category) { ui.fail("Choose what kind of incident it is."); return null; }
      if (text.value.trim().length < 3) { ui.fail("Describe the incident in a few words."); return null; }
      return { category, text: text.value.trim() };
    }, "Report incident");
  });
}

function confirmDialog(c, title, text, body) {
  bind(modal(title, (d, ui) => {
    d.append(el("p", {}, text));
    submitWithApproval(d, ui, c, null, () => body, title);
  }), c);
}

// --- start ----------------------------------------------------------------------------------------------

async function start() {
  await requireMe();
  let data;
  try {
    data = await api(`/tables/${encodeURIComponent(tableId)}`);
  } catch (e) {
    header("Studio console");
    clear(main).append(el("div", { class: "error" }, e.message));
    return;
  }
  meta = data.meta;
  const bar = header(`Table ${tableId} \u00b7 ${meta.game.replace(/_/g, " ")}`);
  bar.insertBefore(shiftControl(tableId), bar.querySelector("#who"));
  document.title = `Table ${tableId}`;
  layout();
  setView(data.view);
  setInterval(tick, 250);
  live(`tables=${encodeURIComponent(tableId)}`, (msg) => {
    if (msg.type === "table" && msg.table_id === tableId) setView(msg.view);
    else if (msg.type === "event" && msg.what === "refused") toast(`The studio refused: ${msg.data.message}`, "bad");
    else if (msg.type === "device" && view && !/_(status|sample)$/.test(msg.event.kind) && msg.event.kind !== "command") {
      view.round_events = (view.round_events || []).concat([msg.event]).slice(-100);
      renderLive();
    }
  }, (up) => document.body.classList.toggle("offline", !up));
}

start();
