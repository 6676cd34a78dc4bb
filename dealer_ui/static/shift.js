// The dealer's shift at this table: who deals here, and a button to sign in as the table's dealer (or out), so
// every round knows its dealer (docs/statistics.md). Journaled by the studio like every action.
import { ApiError, api, can, clear, el, session, toast } from "./common.js";

export function shiftControl(tableId) {
  const box = el("span", { class: "shift", id: "shift" });
  const path = `/tables/${encodeURIComponent(tableId)}/dealer`;
  async function render() {
    const { dealer } = await api(path);
    const me = session.me.username;
    const label = dealer ? `Dealer: ${dealer}` : "No dealer signed in";
    const act = async (method) => {
      try {
        await api(path, { method, body: {} });
      } catch (e) {
        toast(e instanceof ApiError ? e.message : String(e), "bad");
      }
      render();
    };
    const button = !can("deal") ? null
      : dealer === me ? el("button", { type: "button", id: "shift-out", onclick: () => act("DELETE") }, "Sign out of this table")
        : el("button", { type: "button", id: "shift-in", onclick: () => act("POST") },
          dealer ? "Take over as dealer" : "Sign in as dealer");
    clear(box).append(el("span", { class: "who", id: "shift-dealer" }, label), button);
  }
  render().catch(() => {});
  return box;
}
