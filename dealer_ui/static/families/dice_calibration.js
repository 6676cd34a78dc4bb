// Dice camera: calibration in a minute (technicians). Two pictures, each uploaded or grabbed from the camera:
// the empty tray, then dice at rest on it. The studio derives the felt, the tray, the die colours and size and
// the dice it found (drawn on the picture); the technician accepts, and the studio stores and journals the new
// version. API: dealer_ui/dice.py (".../setup/..."), studio/dice_calibration.py.
import { ROOT, ApiError, api, clear, el, session, toast } from "../common.js";

const swatch = (hex, label) => el("span", { class: "swatch", title: label || hex,
  style: `display:inline-block;width:28px;height:28px;vertical-align:middle;border:1px solid #888;border-radius:4px;background:${hex}` });

export function renderSetup({ tableId, role, onAccepted = () => {} }) {
  const base = `/dice/${encodeURIComponent(tableId)}/${encodeURIComponent(role)}/setup`;
  const result = el("div", { id: "dice-cal-result" });
  const count = el("input", { id: "dice-cal-count", inputmode: "numeric", style: "width:4em", placeholder: "any",
    "aria-label": "Dice on the tray" });
  let derived = null;

  function step(which, title, hint) {
    const img = el("img", { id: `dice-cal-${which}-img`, alt: title, style: "max-width:100%;max-height:220px;border:1px solid #444;background:#111;display:none" });
    const status = el("div", { id: `dice-cal-${which}-status`, class: "muted" }, "No picture yet.");
    const shown = (r) => {
      img.src = `${ROOT}/api${base}/${which}.jpg?t=${Date.now()}`;
      img.style.display = "block";
      clear(status).append(`${r.width} \u00d7 ${r.height} from ${r.source}`);
      derived = null;
      clear(result);
    };
    const file = el("input", { type: "file", id: `dice-cal-${which}-file`, accept: "image/*", "aria-label": title });
    file.addEventListener("change", async () => {
      const f = file.files && file.files[0];
      if (!f) return;
      clear(status).append("Sending\u2026");
      try {
        const res = await fetch(`${ROOT}/api${base}/${which}`, { method: "POST", body: f, credentials: "same-origin",
          headers: { "Content-Type": f.type || "application/octet-stream", "X-CSRF-Token": session.me.csrf, "Accept": "application/json" } });
        let body = null;
        try { body = await res.json(); } catch (e) { body = null; }
        if (!res.ok) throw new ApiError(res.status, body);
        shown(body);
      } catch (e) {
        clear(status).append(el("span", { class: "bad" }, e.message));
      }
    });
    const grab = el("button", { type: "button", id: `dice-cal-${which}-grab`, onclick: async () => {
      try { shown(await api(`${base}/${which}/grab`, { method: "POST", body: {} })); }
      catch (e) { clear(status).append(el("span", { class: "bad" }, e.message)); }
    } }, "Grab from the camera");
    return el("div", { style: "flex:1;min-width:260px;border:1px solid #444;border-radius:6px;padding:10px" },
      el("h4", {}, title), el("p", { class: "muted" }, hint),
      el("div", { class: "row" }, file, grab), status, img);
  }

  function show(r) {
    const rows = [
      ["Felt", el("span", { id: "dice-cal-felt" }, swatch(r.felt_hex, "felt"), ` ${r.felt_hex} \u00b7 brightness ${r.felt_value}`)],
      ["Tray", el("span", { id: "dice-cal-tray", class: "mono" }, r.tray ? r.tray.map((p) => `(${p[0].toFixed(0)}, ${p[1].toFixed(0)})`).join(" ") : "the whole frame")],
      ["Die size", el("span", { id: "dice-cal-die-size" }, `${r.die_side} px (${r.die_size.join(" \u2013 ")} px)`)],
      ["Dice found", el("span", { id: "dice-cal-found" }, String(r.dice_found))],
      ["Die colours", el("ul", { id: "dice-cal-colors", class: "live-list" }, ...r.colors.map((c) =>
        el("li", { "data-color": c.name }, swatch(c.hex, c.name), ` ${c.name} ${c.hex}`)))],
      ["Version", el("span", { id: "dice-cal-version" }, `v${r.version} (digest ${r.digest})` + (r.replaces ? `, replaces v${r.replaces}` : ""))],
    ];
    const accept = el("button", { type: "button", class: "primary", id: "dice-cal-accept", onclick: async () => {
      accept.disabled = true;
      try {
        const a = await api(`${base}/accept`, { method: "POST", body: { digest: r.digest } });
        clear(result).append(el("p", { id: "dice-cal-accepted", class: "big-text" },
          `Version ${a.version} accepted and journaled (digest ${a.digest})` +
          (a.applied ? ": the table reads with it now." : `: stored as ${a.file}; the table reads with it once that is the calibration in its settings.`)));
        toast(`Dice calibration v${a.version} accepted.`);
        onAccepted(a);
      } catch (e) {
        accept.disabled = false;
        toast(e.message, "error");
      }
    } }, `Accept as version ${r.version}`);
    clear(result).append(
      el("dl", { class: "kv", id: "dice-cal-derived" }, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
      ...r.warnings.map((w) => el("p", { class: "bad dice-cal-warning" }, w)),
      el("img", { id: "dice-cal-drawn", alt: "The dice picture with the dice found drawn on it",
        src: `${ROOT}/api${base}/derived.jpg?t=${Date.now()}`, style: "max-width:100%;border:1px solid #444" }),
      el("div", { class: "row" }, accept));
  }

  const go = el("button", { type: "button", class: "primary", id: "dice-cal-derive", onclick: async () => {
    const body = {};
    if (count.value.trim()) body.count = parseInt(count.value.trim(), 10);
    go.disabled = true;
    clear(result).append(el("p", { class: "muted" }, "Deriving\u2026"));
    try { derived = await api(`${base}/derive`, { method: "POST", body }); show(derived); }
    catch (e) { clear(result).append(el("p", { class: "bad", id: "dice-cal-error" }, e.message)); }
    finally { go.disabled = false; }
  } }, "Derive the calibration");

  return el("section", { id: "dice-cal" },
    el("p", { class: "muted" }, "Two pictures from this camera under the studio light: the tray empty, then dice at rest on it, well apart. The studio works out the felt, the tray, the die colours and size; nothing changes until you accept."),
    el("div", { class: "row", style: "align-items:stretch" },
      step("empty", "1. The empty tray", "Clear the tray, then grab or upload."),
      step("dice", "2. Dice at rest", "Lay the game's dice on the tray, apart from one another.")),
    el("div", { class: "row" }, el("label", {}, "dice on the tray ", count), go),
    result);
}
