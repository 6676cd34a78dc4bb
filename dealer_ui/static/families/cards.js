// Card shoe: the decoder test. The last raw barcodes the shoe read and what the vendor table makes of each,
// a payload typed in (or read off a card by a scanner in keyboard mode), and for a camera shoe a card image
// decoded as the shoe would; the vendor table, the decoder in use and the read/unreadable counters.
import { ApiError, ROOT, api, clear, el, session, timeOf, toast } from "../common.js";
import { cardNode } from "../render.js";
import { commandLine, missingNote } from "./generic.js";

const FIGURES = {
  cards: "Cards", unreadable: "Unreadable", unknown: "Unknown barcodes", bad_check: "Bad check digit",
  folded: "Repeats folded", lines: "Lines from the scanner", frames: "Frames", reads_cards: "Cards read",
  reads_unknown: "Unknown barcodes", reads_bad_check: "Bad check digit", reads_folded: "Repeats folded",
  frames_missed: "Frames missed", analysis_errors: "Analysis errors", frame_ms_p50: "Frame time p50 (ms)",
  frame_ms_p99: "Frame time p99 (ms)",
};

function verdict(r) {
  const box = el("div", { class: `verdict ${r.status}` });
  if (r.card) box.append(cardNode(r.card));
  box.append(el("div", {}, el("div", { class: "big-text" }, r.text),
    el("div", { class: "mono muted" }, r.payload),
    r.deck ? el("div", { class: "muted" }, `deck ${r.deck}`) : null));
  return box;
}

export function render(container, ctx) {
  const base = `/devices/${encodeURIComponent(ctx.tableId)}/${encodeURIComponent(ctx.role)}`;
  let data = ctx.page || {};
  const info = el("div", { id: "shoe-info" });
  const reads = el("ul", { class: "live-list", id: "shoe-reads", style: "max-height:420px" });
  const result = el("div", { id: "decode-result", "aria-live": "polite" });
  const imageResult = el("div", { id: "decode-image-result", "aria-live": "polite" });

  function draw() {
    clear(info);
    const v = data.vendor;
    const d = data.decoder || {};
    info.append(el("dl", { class: "kv" },
      el("dt", {}, "Vendor table"), el("dd", { id: "shoe-vendor" }, v ? `${v.name}${v.description ? " (" + v.description + ")" : ""}` : "not available from this driver"),
      v ? [el("dt", {}, "Payload"), el("dd", { class: "mono" }, `${v.template} \u00b7 ${v.symbology} \u00b7 check ${v.check}`)] : null,
      el("dt", {}, "Decoder"), el("dd", { id: "shoe-decoder" }, `${d.name || "unknown"}${d.symbology ? " (" + d.symbology + ")" : ""}`),
      el("dt", {}, ""), el("dd", { class: "muted" }, d.where || ""),
      el("dt", {}, "Last payload"), el("dd", { class: "mono" }, data.last_payload || "\u2014")));
    const figures = el("table", { class: "devices", id: "shoe-figures" });
    for (const [k, value] of Object.entries(data.figures || {})) {
      figures.append(el("tr", {}, el("td", {}, FIGURES[k] || k.replace(/_/g, " ")), el("td", { class: "mono", id: `fig-${k}` }, String(value))));
    }
    info.append(el("h3", { style: "margin-top:10px" }, "Counters"), figures);
    const missing = missingNote(data.missing);
    if (missing) info.append(missing);
    clear(reads);
    if (!(data.reads || []).length) reads.append(el("li", { class: "muted" }, "Nothing read since the studio started. Deal a test card."));
    for (const r of data.reads || []) {
      reads.append(el("li", { class: "read-row" },
        el("span", { class: "at" }, timeOf(r.at)),
        r.card ? cardNode(r.card) : null,
        el("strong", {}, r.text),
        r.payload ? el("span", { class: "mono" }, ` ${r.payload}`) : null,
        r.raw && r.raw !== r.payload ? el("span", { class: "mono muted" }, ` raw ${JSON.stringify(r.raw)}`) : null,
        r.table_says && r.table_says !== r.text ? el("span", { class: "muted" }, ` (the table now says: ${r.table_says})`) : null));
    }
  }

  const payload = el("input", { id: "decode-payload", class: "mono", autocomplete: "off", spellcheck: "false",
    autocapitalize: "none", placeholder: "e.g. 1047293012" });
  const form = el("form", { class: "row", id: "decode-form" },
    el("div", { style: "flex:1;min-width:220px" }, el("label", { for: "decode-payload" }, "Payload (typed, or a scanner in keyboard mode)"), payload),
    el("button", { type: "submit", class: "primary", id: "decode-send", style: "align-self:flex-end" }, "Look up"));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!payload.value.trim()) return;
    try {
      const r = await api(`${base}/decode`, { method: "POST", body: { payload: payload.value.trim() } });
      clear(result).append(verdict(r));
    } catch (e) { clear(result).append(el("div", { class: "error" }, e.message)); }
  });

  const parts = [
    el("h2", {}, "Card shoe: decoder test"),
    info,
    el("h3", { style: "margin-top:12px" }, "Look a payload up in the vendor table"), form, result,
  ];
  if (data.image_test) {
    const file = el("input", { type: "file", id: "decode-file", accept: "image/*", capture: "environment",
      "aria-label": "Card image" });
    const go = el("button", { type: "button", class: "primary", id: "decode-image", onclick: async () => {
      const f = file.files && file.files[0];
      if (!f) { toast("Choose a card image first.", "bad"); return; }
      go.disabled = true;
      clear(imageResult).append(el("p", { class: "muted" }, "Decoding\u2026"));
      try {
        const res = await fetch(`${ROOT}/api${base}/decode-image`, { method: "POST", body: f, credentials: "same-origin",
          headers: { "Content-Type": f.type || "application/octet-stream", "X-CSRF-Token": session.me.csrf, "Accept": "application/json" } });
        let body = null;
        try { body = await res.json(); } catch (e) { body = null; }
        if (!res.ok) throw new ApiError(res.status, body);
        clear(imageResult).append(el("p", { id: "decode-image-text", class: "big-text" }, body.text),
          el("p", { class: "muted" }, `${body.decoder} (${body.symbology}), ${body.width}x${body.height}, ` +
            `${body.cards_in_view} whole card(s) found${body.read_from ? ", read from the " + body.read_from : ""}`),
          ...body.payloads.map(verdict));
      } catch (e) {
        clear(imageResult).append(el("div", { class: "error" }, e.message));
      } finally { go.disabled = false; }
    } }, "Decode image");
    parts.push(el("h3", { style: "margin-top:12px" }, "Decode a card image as this shoe would"),
      el("p", { class: "muted" }, "A photo or scan of one card: the studio finds the card, straightens it and reads " +
        "its barcode with this shoe's decoder; the shoe itself is not disturbed."),
      el("div", { class: "row" }, el("div", { style: "flex:1;min-width:220px" }, file), go), imageResult);
  } else {
    parts.push(el("p", { class: "muted", id: "no-image-test" }, "This shoe decodes barcodes in its own scanner: the " +
      "studio sees only the payloads it sends (above). Deal a test card to see it read."));
  }
  parts.push(el("h3", { style: "margin-top:12px" }, "Last barcodes read"), reads);
  if (ctx.family.commands.length) parts.push(commandLine(ctx));
  container.append(...parts);
  draw();

  let last = 0;
  const refresh = async () => {
    last = Date.now();
    try { data = (await ctx.refresh()) || data; draw(); } catch (e) { /* the next update tries again */ }
  };
  return {
    event(entry) { if (entry.kind === "card_drawn" || entry.kind === "card_unreadable") refresh(); },
    update() { if (Date.now() - last > 2000) refresh(); },
  };
}
