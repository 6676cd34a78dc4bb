// Money wheel (angle encoder, pointer reader): the wheel as configured (segments, layout clockwise from the
// marked segment 0, zero offset, counting direction, spin direction), the live position and the segment under
// the pointer, and the zero calibration: bring the marked segment under the pointer, take the zero mark.
import { clear, el, timeOf } from "../common.js";
import { missingNote } from "./generic.js";

export function render(container, ctx) {
  let data = ctx.page || {};
  const config = el("section", { id: "wheel-config" });
  const live = el("section", { id: "wheel-position" });
  const zero = el("section", { id: "wheel-zero" });

  function sensorOf(kind) { return (data.sensors || []).find((s) => s.kind === kind); }

  function drawConfig() {
    const c = data.calibration;
    clear(config).append(el("h2", {}, "Money wheel"));
    if (!c) { config.append(missingNote(data.missing) || el("p", {}, "No calibration known.")); return; }
    config.append(el("dl", { class: "kv", id: "wheel-calibration" },
      el("dt", {}, "Segments"), el("dd", { id: "mw-segments" }, String(data.segments)),
      el("dt", {}, "Zero offset (in use)"), el("dd", { id: "mw-zero" }, `${c.zero_offset} counts`),
      el("dt", {}, "Zero offset (configured)"), el("dd", {}, c.configured_zero_offset === null || c.configured_zero_offset === undefined
        ? "\u2014" : `${c.configured_zero_offset} counts`),
      el("dt", {}, "Encoder counts up when the wheel turns"), el("dd", { id: "mw-counting" }, c.counting),
      el("dt", {}, "Counts per turn"), el("dd", {}, c.counts_per_turn ? String(c.counts_per_turn) : "the encoder's"),
      el("dt", {}, "Spin direction required"), el("dd", { id: "mw-direction" }, data.direction || "either"),
      el("dt", {}, "Sensors"), el("dd", {}, Array.isArray(data.sensors_setting) ? data.sensors_setting.join(", ") : String(data.sensors_setting ?? "auto"))));
    const strip = el("div", { class: "segments", id: "mw-layout", "aria-label": "layout clockwise from segment 0" });
    const under = (sensorOf("wheel-encoder") || sensorOf("wheel-pointer") || {}).segment;
    for (const s of data.layout || []) {
      strip.append(el("div", { class: `segment${s.index === under ? " under" : ""}${s.index === 0 ? " zero" : ""}`,
        style: s.color ? `border-top: 8px solid ${s.color}` : "" },
        el("span", { class: "idx" }, String(s.index)), el("strong", {}, s.label)));
    }
    config.append(el("h3", { style: "margin-top:10px" }, "Layout, clockwise from the marked segment 0"), strip);
  }

  function drawLive() {
    clear(live).append(el("h2", { style: "margin-top:14px" }, "Under the pointer now"));
    const enc = sensorOf("wheel-encoder");
    const ptr = sensorOf("wheel-pointer");
    if (enc) {
      live.append(el("p", { class: "big-text", id: "mw-encoder" }, !enc.connected ? "Encoder not connected"
        : enc.position === null || enc.position === undefined ? "Encoder: position unknown (not referenced: turn the wheel once past its index mark)"
          : `Encoder: segment ${enc.segment} '${enc.label}', position ${enc.position} of ${enc.counts_per_turn}` +
            `${enc.moving ? ", turning" : ", still"}, ${enc.edge_percent}% of a segment from the nearest boundary`));
    }
    if (ptr) {
      live.append(el("p", { class: "big-text", id: "mw-pointer" }, !ptr.connected ? "Pointer reader not connected"
        : ptr.unreadable ? "Pointer reader: no tag readable"
          : ptr.tag ? `Pointer reader: tag ${ptr.tag}${ptr.other_tag ? " and " + ptr.other_tag + " (on a boundary)" : ""}, segment ${ptr.segment ?? "unknown"}${ptr.label ? " '" + ptr.label + "'" : ""}`
            : "Pointer reader: nothing read yet"));
    }
    if (!enc && !ptr) live.append(el("p", { class: "muted" }, "No encoder or pointer reader at this table."));
  }

  function drawZero() {
    clear(zero).append(el("h2", { style: "margin-top:14px" }, "Zero calibration"));
    const enc = sensorOf("wheel-encoder");
    zero.append(el("ol", {},
      el("li", {}, "Bring the marked segment 0 ('" + ((data.layout || [])[0] || {}).label + "') under the pointer, centred, and hold the wheel still."),
      el("li", {}, "Take the zero mark: the encoder reports its position and the judge uses it at once."),
      el("li", {}, "Write the value into the table's settings so that it survives a restart.")));
    if (!enc) {
      zero.append(el("p", { class: "muted" }, "The zero offset is the encoder's: this table has no encoder (a pointer reader needs no zero: its tag table names the segments)."));
      return;
    }
    const would = enc.mark_zero_would_set;
    zero.append(el("p", { class: "big-text", id: "mw-would-set" }, would === undefined || would === null
      ? "The encoder's position is not known: no zero mark can be taken now."
      : `A zero mark now sets zero_offset = ${would} counts${enc.moving ? " (the wheel is turning: hold it still first)" : ""}.`));
    if (would !== undefined && would !== null) {
      zero.append(el("p", { id: "mw-config-line" }, "For the configuration file (the table's settings): ",
        el("code", { class: "mono" }, `calibration = { zero_offset = ${would}, counting = "${(data.calibration || {}).counting || "clockwise"}" }`)));
    }
    const mine = enc.device_id === `${ctx.tableId}/${ctx.role}`;
    if (mine && ctx.family.commands.includes("mark_zero")) {
      zero.append(el("div", { class: "row" },
        el("button", { type: "button", class: "primary big", id: "mark-zero", onclick: () => ctx.send("mark_zero") }, "Take the zero mark"),
        el("button", { type: "button", id: "sample", onclick: () => ctx.send("sample") }, "Read the encoder now")));
    }
    for (const n of data.notes || []) zero.append(el("p", { class: "note-line" }, el("span", { class: "at" }, timeOf(n.at)), n.message));
  }

  container.append(config, live, zero);
  const draw = () => { drawConfig(); drawLive(); drawZero(); const m = missingNote(data.missing); if (m && data.calibration) zero.append(m); };
  draw();
  let last = 0;
  async function refresh() {
    last = Date.now();
    try { data = (await ctx.refresh()) || data; draw(); } catch (e) { /* next update */ }
  }
  return {
    event(entry) { if (entry.kind === "command" || /zero|pointer|at_rest/.test(entry.kind || "")) refresh(); },
    update() { if (Date.now() - last > 700) refresh(); },
  };
}
