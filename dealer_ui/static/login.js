// Sign-in: user name and PIN (or password), with an on-screen keypad for touchscreens.
import { ApiError, ROOT, api, clear, el, homeFor, keypad, session } from "./common.js";

const main = document.getElementById("main");

function safeNext() {
  const next = new URLSearchParams(location.search).get("next") || "";
  return /^\/console\/[A-Za-z0-9/_\-.?=&%]*$/.test(next) && !next.startsWith("//") ? next : null;
}

function go(me) {
  location.href = safeNext() || homeFor(me);
}

async function start() {
  try {
    const me = await fetch(`${ROOT}/api/me`, { credentials: "same-origin" });
    if (me.ok && !new URLSearchParams(location.search).has("switch")) {
      const who = await me.json();
      session.me = who;
    }
  } catch (e) { /* not signed in */ }
  render();
}

function render() {
  clear(main);
  const user = el("input", { id: "username", name: "username", autocomplete: "username", autocapitalize: "none",
    spellcheck: "false", required: true });
  const pin = el("input", { id: "pin", name: "pin", type: "password", autocomplete: "current-password",
    inputmode: "numeric", required: true });
  const error = el("div", { class: "error hidden", id: "login-error", role: "alert" });
  const submit = el("button", { type: "submit", class: "primary big", id: "sign-in" }, "Sign in");
  const form = el("form", { class: "panel login", id: "login-form" },
    el("h1", {}, "Studio console"),
    session.me ? el("p", { class: "row" }, `Signed in as ${session.me.username} (${session.me.role}). `,
      el("a", { class: "button", href: homeFor(session.me) }, "Continue")) : null,
    el("label", { for: "username" }, "User name"), user,
    el("label", { for: "pin" }, "PIN or password"), pin,
    keypad(pin),
    error,
    el("div", { class: "row", style: "margin-top:14px" }, submit));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.classList.add("hidden");
    submit.disabled = true;
    try {
      const me = await api("/login", { method: "POST", body: { username: user.value, secret: pin.value } });
      session.me = me;
      go(me);
    } catch (e) {
      pin.value = "";
      error.textContent = e instanceof ApiError ? e.message : "The studio did not answer.";
      error.classList.remove("hidden");
    } finally {
      submit.disabled = false;
    }
  });
  main.append(form);
  user.focus();
}

start();
