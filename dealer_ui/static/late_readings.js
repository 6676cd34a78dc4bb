// A result entered by hand against the devices (studio/late_readings.py): the manual-result dialog asks the
// dealer to declare a device that can still report failed for this round; the table's late device readings are
// shown beside the result entered by hand; a supervisor settles one that differs.
import { clear, el, timeOf } from "./common.js";
import { resultText } from "./render.js";

const STATUS = {
  confirmed: "Confirms the result entered by hand",
  correction_open: "Differs: a correction is open, a supervisor settles it",
  corrected: "Published as a correction",
  kept_manual: "The result entered by hand was kept",
  invalid: "Not a result of this game",
  no_reading: "The device gave no reading it could confirm",
};

/** The manual-result dialog's part for a device that can still report: a checkbox and the reason. */
export function deviceFailedBox(choice) {
  const live = choice.device_can_report || [];
  if (!live.length) return null;
  const names = live.map((d) => `${d.role} (${d.kind || "device"})`).join(", ");
  const check = el("input", { type: "checkbox", id: "device-failed" });
  const why = el("textarea", { id: "device-failed-reason", maxlength: "500" });
  const node = el("div", { class: "device-failed", id: "device-failed-box" },
    el("p", { class: "warn" }, `The ${names} is connected and can still report this round. A result by hand is ` +
      "refused unless you declare the device failed for this round (recorded with the supervisor's approval)."),
    el("label", { for: "device-failed" }, check, " The device has failed for this round"),
    el("label", { for: "device-failed-reason" }, "What is wrong with the device"), why);
  return {
    node,
    /** The reason, null when not declared, undefined (after `ui.fail`) when declared without a reason. */
    value(ui) {
      if (!check.checked) return null;
      if (why.value.trim().length < 3) { ui.fail("Say in a few words what is wrong with the device."); return undefined; }
      return why.value.trim();
    },
  };
}

function row(e, inDialog = false) {
  const manual = e.manual || {};
  const people = (manual.people || []).filter(Boolean).join(" and ");
  const id = inDialog ? {} : { id: `late-${e.round_id}` };
  return el("li", { class: `late ${e.status}`, ...id, dataset: { status: e.status } },
    el("div", { class: "title" }, `Round ${e.round_number}`),
    el("div", { class: "pair" },
      el("span", { class: "manual" }, `By hand: ${resultText(manual.result)}${people ? ` (${people})` : ""}`),
      el("span", { class: "device" },
        e.reading ? `${(e.device || {}).device_id || "device"} read: ${resultText(e.reading)} at ${timeOf(e.at)}`
          : `The game's rules: ${(e.judge || {}).message || "no reading"}`)),
    el("div", { class: "status" }, STATUS[e.status] || e.status,
      e.resolved ? ` (${e.resolved.by} and ${e.resolved.approved_by}: ${e.resolved.reason})` : ""));
}

/** The panel of late device readings (hidden while there is none). */
export function renderLateReadings(panel, view) {
  const items = view.late_readings || [];
  clear(panel).append(el("h2", {}, "Device readings after a result by hand"));
  panel.classList.toggle("hidden", !items.length);
  const open = items.some((e) => e.status === "correction_open");
  panel.classList.toggle("warn", open);
  panel.append(el("ul", { class: "live-list", id: "late-readings-list" }, ...items.map((e) => row(e))));
}

/** The settle dialog's content: both readings, the choice and the reason; returns its body maker. */
export function resolveParts(d, view, choice, choiceButtons) {
  const e = (view.late_readings || []).find((x) => x.round_id === choice.code && x.status === "correction_open");
  let keep = null;
  const reason = el("textarea", { id: "resolve-reason", maxlength: "500" });
  d.append(e ? el("ul", { class: "live-list" }, row(e, true)) : el("p", {}, "This reading is settled already."),
    choiceButtons([{ code: "device", label: "Publish the device's reading (a correction)" },
      { code: "manual", label: "Keep the result entered by hand" }], (x) => { keep = x; }, "keep"),
    el("label", { for: "resolve-reason" }, "Why (recorded)"), reason);
  return (ui) => {
    if (!keep) { ui.fail("Choose the device's reading or the result entered by hand."); return null; }
    if (reason.value.trim().length < 3) { ui.fail("Say in a few words why."); return null; }
    return { code: choice.code, keep, reason: reason.value.trim() };
  };
}
