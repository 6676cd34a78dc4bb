// Administrators: the console's users (roles, new PINs, disable).
import { api, clear, el, header, requireMe, toast } from "./common.js";

const main = document.getElementById("main");

async function refresh() {
  const users = await api("/users");
  const body = el("tbody", {});
  for (const u of users) {
    const pin = el("input", { type: "password", autocomplete: "new-password", "aria-label": `new PIN for ${u.username}` });
    body.append(el("tr", {},
      el("td", {}, el("strong", {}, u.username)), el("td", {}, u.role),
      el("td", {}, u.disabled ? el("span", { class: "pill bad" }, "Disabled") : el("span", { class: "pill ok" }, "Active")),
      el("td", {}, el("div", { class: "row" }, pin, el("button", { type: "button", onclick: async () => {
        try { await api(`/users/${u.username}/secret`, { method: "POST", body: { secret: pin.value } }); toast("PIN changed", "good"); }
        catch (e) { toast(e.message, "bad"); }
      } }, "New PIN"))),
      el("td", {}, el("button", { type: "button", class: u.disabled ? "go" : "danger", onclick: async () => {
        try { await api(`/users/${u.username}/disabled`, { method: "POST", body: { disabled: !u.disabled } }); await refresh(); }
        catch (e) { toast(e.message, "bad"); }
      } }, u.disabled ? "Enable" : "Disable"))));
  }
  const name = el("input", { id: "new-name", autocomplete: "off", autocapitalize: "none" });
  const role = el("select", { id: "new-role" }, ["dealer", "supervisor", "technician", "admin"].map((r) => el("option", { value: r }, r)));
  const secret = el("input", { id: "new-secret", type: "password", autocomplete: "new-password" });
  const form = el("form", { class: "panel" }, el("h2", {}, "Add a user"),
    el("label", { for: "new-name" }, "User name"), name, el("label", { for: "new-role" }, "Role"), role,
    el("label", { for: "new-secret" }, "PIN or password"), secret,
    el("div", { class: "row", style: "margin-top:10px" }, el("button", { type: "submit", class: "primary" }, "Add user")));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await api("/users", { method: "POST", body: { username: name.value, role: role.value, secret: secret.value } });
      toast("User added", "good");
      await refresh();
    } catch (e) { toast(e.message, "bad"); }
  });
  clear(main).append(el("h1", {}, "Users"),
    el("div", { class: "panel" }, el("table", { class: "devices", id: "users" },
      el("thead", {}, el("tr", {}, ["User", "Role", "State", "PIN", ""].map((h) => el("th", {}, h)))), body)), form);
}

async function start() {
  await requireMe();
  header("Users");
  await refresh();
}

start();
