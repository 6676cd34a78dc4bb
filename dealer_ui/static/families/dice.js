// Dice camera (technicians): the camera's latest picture with the tray and the dice the recognizer sees drawn
// over it, what it read, the calibration the table reads with, the evidence pictures of held rounds, and an
// accuracy run over a folder of labelled pictures on the studio machine, and the calibration in a minute
// (dice_calibration.js). API: dealer_ui/dice.py.
// Plain ES module: no build step, nothing from the internet.
import { ROOT, api, clear, el, toast } from "../common.js";
import { renderSetup } from "./dice_calibration.js";

const pct = (x) => (x === null || x === undefined ? "\u2014" : `${(100 * x).toFixed(2)} %`);

export function render(container, ctx) {
  const [tableId, role] = ctx.tableId && ctx.role ? [ctx.tableId, ctx.role] : ctx.device.device_id.split("/");
  const base = `/dice/${encodeURIComponent(tableId)}/${encodeURIComponent(role)}`;
  const picture = el("img", { id: "dice-latest", alt: "The camera's latest picture with the dice it sees",
    style: "max-width:100%;border:1px solid #444;background:#111;min-height:120px" });
  const readOut = el("div", { id: "dice-reading", class: "mono" }, "\u2014");
  const calBox = el("div", { id: "dice-calibration" }, "Loading\u2026");
  const evidenceList = el("ul", { class: "live-list", id: "dice-evidence" });
  const report = el("div", { id: "dice-accuracy-report" });
  let timer = null;
  let busy = false;

  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const r = await api(`${base}/latest`);
      picture.src = `${ROOT}/api${base}/latest.jpg?t=${Date.now()}`;
      const dice = r.dice.map((d) => `${d.color} ${d.face ?? "?"}`).join(", ") || "no die";
      clear(readOut).append(
        el("div", {}, el("strong", {}, r.status.toUpperCase()), ` frame ${r.frame_number}: ${dice}`,
          ` \u00b7 confidence ${pct(r.confidence)}`),
        el("div", {}, `felt brightness ${r.felt_value ?? "\u2014"} \u00b7 die ${r.die_size ? r.die_size.toFixed(1) : "\u2014"} px`),
        ...r.issues.map((i) => el("div", { class: "bad" }, i.message)));
    } catch (e) {
      clear(readOut).append(el("span", { class: "bad" }, e.message));
    } finally {
      busy = false;
    }
  }

  async function loadCalibration() {
    try {
      const c = await api(`${base}/calibration`);
      const cal = c.calibration;
      if (!cal) {
        clear(calBox).append(el("p", {}, "No calibration: the whole frame is searched and sizes are estimated."));
        return;
      }
      const rows = [
        ["Version / digest", `v${c.version} / ${c.digest}`],
        ["Latest accepted here", c.stored_version ? `v${c.stored_version}` : "none yet"],
        ["Dice read", `${c.dice ?? "?"}${c.colors ? " (" + c.colors.join(", ") + ")" : ""}`],
        ["Frame size", cal.frame_size ? cal.frame_size.join(" \u00d7 ") : "any"],
        ["Tray corners", cal.tray ? cal.tray.map((p) => `(${p[0]}, ${p[1]})`).join(" ") : "whole frame"],
        ["Die size (px)", cal.die_size ? cal.die_size.join(" \u2013 ") : "estimated"],
        ["Pip size (of a side)", cal.pip_size.join(" \u2013 ")],
        ["Camera height (dice)", cal.camera_height],
        ["Max side band", cal.max_side_band],
        ["Min confidence", cal.min_confidence],
        ["Felt brightness", cal.exposure.felt_value.join(" \u2013 ")],
        ["Max burnt out", cal.exposure.max_clipped],
        ["Colours", cal.colors.map((k) => `${k.name}: hue ${k.hue ? k.hue.join("\u2013") : "any"}, sat ${k.saturation.join("\u2013")}, val ${k.value.join("\u2013")}${k.brightness ? ", \u00d7" + k.brightness + " felt" : ""}`).join("; ")],
      ];
      clear(calBox).append(el("dl", { class: "kv" }, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", { class: "mono" }, String(v))])));
    } catch (e) {
      clear(calBox).append(el("span", { class: "bad" }, e.message));
    }
  }

  async function loadEvidence() {
    try {
      const items = await api(`/dice/${encodeURIComponent(tableId)}/evidence`);
      clear(evidenceList);
      if (!items.length) evidenceList.append(el("li", { class: "muted" }, "No held round at this table (since the studio started)."));
      for (const ev of items.reverse()) {
        const href = `${ROOT}/api/dice/${encodeURIComponent(tableId)}/evidence/${encodeURIComponent(ev.evidence_id)}.png`;
        evidenceList.append(el("li", {}, el("a", { href, target: "_blank", rel: "noopener" }, ev.evidence_id),
          ` ${ev.code}: ${ev.message}`));
      }
    } catch (e) {
      clear(evidenceList).append(el("li", { class: "bad" }, e.message));
    }
  }

  const folderList = el("datalist", { id: "dice-folders" });
  const picturesRoot = el("span", { id: "dice-pictures-root", class: "mono" }, "\u2026");
  const folder = el("input", { id: "dice-folder", class: "mono", placeholder: "camera-1", list: "dice-folders",
    autocomplete: "off", style: "min-width:24em", "aria-label": "Folder in the studio's pictures folder" });

  async function loadFolders() {
    try {
      const r = await api("/dice/pictures");
      clear(picturesRoot).append(r.exists ? r.root : `${r.root} (not created yet)`);
      clear(folderList).append(...r.folders.map((name) => el("option", { value: name })));
    } catch (e) {
      clear(picturesRoot).append(e.message);
    }
  }
  const count = el("input", { id: "dice-count", inputmode: "numeric", style: "width:4em", "aria-label": "Dice per picture",
    placeholder: "auto" });
  const useCal = el("input", { id: "dice-use-calibration", type: "checkbox", checked: true });
  const runButton = el("button", { type: "submit", class: "primary", id: "dice-run-accuracy" }, "Run accuracy over folder");

  async function runAccuracy(ev) {
    ev.preventDefault();
    const body = { folder: folder.value.trim() };
    if (!body.folder) { toast("Enter the folder of labelled pictures.", "error"); return; }
    if (count.value.trim()) body.count = parseInt(count.value.trim(), 10);
    if (useCal.checked) { body.table_id = tableId; body.role = role; }
    runButton.disabled = true;
    clear(report).append(el("p", { class: "muted" }, "Reading the pictures\u2026"));
    try {
      const r = await api("/dice/accuracy", { method: "POST", body });
      const rows = [["Pictures", r.frames], ["Readable (no fault)", r.readable], ["Read correctly", r.correct],
        ["Uncertain (refused)", r.uncertain], ["WRONG while ok", r.wrong_ok], ["Faults / held", `${r.faults} / ${r.faults_held}`],
        ["Accuracy", pct(r.accuracy)], ["Calibration", `${r.calibration ?? "none"} (${r.calibration_source ?? "none"})`]];
      clear(report).append(
        el("dl", { class: "kv", id: "dice-accuracy-figures" }, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", { class: k.startsWith("WRONG") && v ? "bad" : "" }, String(v))])),
        r.misses.length ? el("h4", {}, "Misses (first 20)") : "",
        el("ul", { class: "live-list" }, ...r.misses.map((m) => el("li", { class: "mono" },
          `${m.name}: ${m.status}, expected ${JSON.stringify(m.expected)}, read ${JSON.stringify(m.read)} ${m.issues.join(", ")}`))));
    } catch (e) {
      clear(report).append(el("p", { class: "bad" }, e.message));
    } finally {
      runButton.disabled = false;
    }
  }

  const auto = el("input", { type: "checkbox", id: "dice-auto" });
  auto.addEventListener("change", () => {
    if (timer) { clearInterval(timer); timer = null; }
    if (auto.checked) timer = setInterval(refresh, 2000);
  });

  container.append(
    el("h2", {}, "Dice camera"),
    el("div", { class: "row" },
      el("button", { type: "button", id: "dice-refresh", onclick: refresh }, "Read the latest picture"),
      el("label", {}, auto, " every 2 s")),
    picture, readOut,
    el("h3", { style: "margin-top:12px" }, "Calibration"), calBox,
    el("h3", { style: "margin-top:12px" }, "Calibrate in a minute"),
    renderSetup({ tableId, role, onAccepted: loadCalibration }),
    el("h3", { style: "margin-top:12px" }, "Accuracy over a folder"),
    el("p", { class: "muted" }, "Pictures with NAME.json beside them, or the faces in the file name (throw7_1-3-6.jpg, duel_red5-blue2.png, x_fault.jpg), in a folder of the studio's pictures folder ", picturesRoot, "."),
    folderList,
    el("form", { id: "dice-accuracy-form", onsubmit: runAccuracy },
      el("div", { class: "row" }, folder, el("label", {}, "dice ", count),
        el("label", {}, useCal, " with this camera's calibration"), runButton)),
    report,
    el("h3", { style: "margin-top:12px" }, "Evidence of held rounds"),
    el("div", { class: "row" }, el("button", { type: "button", id: "dice-evidence-refresh", onclick: loadEvidence }, "Refresh")),
    evidenceList);
  refresh();
  loadCalibration();
  loadEvidence();
  loadFolders();
  return {
    event(entry) { if (entry.kind === "camera_status") refresh(); },
  };
}
