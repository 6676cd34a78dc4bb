// The page every device gets: self-test (when the family has one) and a command line checked by the server.
import { el } from "../common.js";

export function commandLine(ctx, { label = "Command", placeholder = "" } = {}) {
  const input = el("input", { id: "raw-command", class: "mono", autocomplete: "off", spellcheck: "false",
    autocapitalize: "none", placeholder });
  const form = el("form", { class: "row", id: "command-form" },
    el("div", { style: "flex:1;min-width:200px" }, el("label", { for: "raw-command" }, label), input),
    el("button", { type: "submit", class: "primary", style: "align-self:flex-end" }, "Send"));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (input.value.trim()) await ctx.send(input.value.trim());
  });
  return form;
}

export function render(container, ctx) {
  container.append(el("h2", {}, ctx.family.name));
  if (ctx.family.self_test) {
    container.append(el("p", {}, ctx.family.self_test_warning),
      el("button", { type: "button", class: "primary big", id: "self-test", onclick: () => ctx.selfTest() },
        "Run self-test"));
  }
  if (ctx.family.commands.length) {
    container.append(commandLine(ctx));
  } else {
    container.append(el("p", { class: "muted" },
      "The console has no calibration page or commands for this device family yet."));
  }
  return {};
}

const MISSING = {
  vendor_table: "the vendor table the shoe uses",
  machine_state: "the machine's register values",
  calibration: "the wheel's calibration",
  frame: "the camera's latest frame",
  overlay: "the positions of the balls and the rotor in the frame",
};

/** A note naming what the page would show but the driver does not expose ("not available from this driver"). */
export function missingNote(missing) {
  if (!missing || !missing.length) return null;
  return el("p", { class: "muted missing", id: "not-available" },
    `Not available from this driver: ${missing.map((m) => MISSING[m] || m.replace(/_/g, " ")).join("; ")}.`);
}
