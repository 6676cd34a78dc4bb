// Sending a command to a device: the server checks the command against the device family's list and asks
// for a confirmation (with the warning) for anything that changes the device.
import { ApiError, api, dialogButtons, el, modal, toast } from "./common.js";

/** Send `command` (or the self-test with `what === "self-test"`), confirming when the server asks. */
export async function sendCommand(table, role, command, what = "command", confirm = false, quiet = false) {
  const base = `/devices/${encodeURIComponent(table)}/${encodeURIComponent(role)}`;
  try {
    const res = what === "self-test"
      ? await api(`${base}/self-test`, { method: "POST", body: { confirm } })
      : await api(`${base}/command`, { method: "POST", body: { command, confirm } });
    if (!quiet) toast(`Sent ${res.sent}`, "good", 3000);
    return res;
  } catch (e) {
    if (e instanceof ApiError && e.data.needs_confirm) {
      return new Promise((resolve) => {
        modal(what === "self-test" ? "Run the self-test?" : `Send ${command}?`, (d, ui) => {
          d.append(el("p", { id: "confirm-warning" }, e.data.warning));
          d.append(dialogButtons(
            el("button", { type: "button", class: "big", onclick: () => { ui.close(); resolve(null); } }, "Cancel"),
            el("button", { type: "button", class: "danger big", id: "confirm-send", onclick: async () => {
              ui.close();
              resolve(await sendCommand(table, role, command, what, true));
            } }, "Send")));
        });
      });
    }
    toast(e.message, "bad");
    return null;
  }
}
