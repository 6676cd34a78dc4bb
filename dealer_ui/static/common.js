// Shared by every console page: the API with its CSRF token, the signed-in person, the live socket,
// small DOM helpers, dialogs with a supervisor's approval, and a numeric keypad for PINs.
// Plain ES modules: no build step, nothing fetched from the internet.

export const ROOT = "/console";
export const session = { me: null };

export class ApiError extends Error {
  constructor(status, data) {
    const detail = data && (data.detail ?? data);
    const message = (detail && (detail.error || (typeof detail === "string" ? detail : null))) ||
      (data && data.error) || `The studio answered ${status}.`;
    super(message);
    this.status = status;
    this.data = (detail && typeof detail === "object") ? detail : {};
  }
}

export async function api(path, { method = "GET", body } = {}) {
  const headers = { "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && session.me) headers["X-CSRF-Token"] = session.me.csrf;
  const res = await fetch(ROOT + "/api" + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin",
  });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (res.status === 401 && path !== "/login") { toLogin(); }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export function toLogin() {
  const next = location.pathname + location.search;
  location.href = `${ROOT}/?next=${encodeURIComponent(next)}`;
}

export function homeFor(me) {
  if (me.permissions.includes("deal") || me.role === "admin") return `${ROOT}/tables`;
  if (me.permissions.includes("devices")) return `${ROOT}/tech`;
  return `${ROOT}/tables`;
}

/** The signed-in person, or off to the sign-in page. */
export async function requireMe() {
  try {
    session.me = await api("/me");
  } catch (e) {
    toLogin();
    throw e;
  }
  return session.me;
}

export function can(permission) {
  return !!(session.me && session.me.permissions.includes(permission));
}

// --- DOM -----------------------------------------------------------------------------------------------

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element, as `el` makes HTML ones (null or undefined attributes and empty children are left out). */
export function svg(tag, attrs = {}, ...children) {
  const n = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) n.setAttribute(k, v);
  for (const c of children) if (c) n.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return n;
}

export function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

export function timeOf(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

export function toast(message, level = "info", ms = 6000) {
  let box = document.querySelector(".toast");
  if (!box) { box = el("div", { class: "toast", role: "status", "aria-live": "polite" }); document.body.append(box); }
  const item = el("div", { class: level }, message);
  box.append(item);
  setTimeout(() => item.remove(), ms);
}

// --- header --------------------------------------------------------------------------------------------

export function header(title) {
  const me = session.me;
  const nav = el("nav", {});
  if (can("view_tables")) nav.append(el("a", { class: "button", href: `${ROOT}/tables` }, "Tables"));
  if (can("devices")) nav.append(el("a", { class: "button", href: `${ROOT}/tech` }, "Devices"));
  if (can("statistics")) nav.append(el("a", { class: "button", href: `${ROOT}/stats` }, "Statistics"));
  if (can("users")) nav.append(el("a", { class: "button", href: `${ROOT}/users` }, "Users"));
  const out = el("button", { type: "button", id: "sign-out", onclick: signOut }, "Sign out");
  const bar = el("header", { class: "bar" },
    el("div", { class: "title", id: "page-title" }, title),
    nav,
    el("span", { class: "who", id: "who" }, `${me.username} (${me.role})`),
    out);
  document.body.prepend(bar);
  return bar;
}

export async function signOut() {
  try { await api("/logout", { method: "POST", body: {} }); } catch (e) { /* signed out anyway */ }
  location.href = `${ROOT}/`;
}

// --- live socket ----------------------------------------------------------------------------------------

/** A WebSocket to /console/ws that reconnects by itself; `onMessage(msg)` gets every message. */
export function live(query, onMessage, onState = () => {}) {
  let delay = 500;
  let stopped = false;
  let ws = null;
  const state = (up) => {
    // a screen that lost its live link says so: what it shows may be old
    let bar = document.getElementById("link-lost");
    if (up && bar) bar.remove();
    if (!up && !bar && !stopped) {
      bar = el("div", { id: "link-lost", role: "alert" }, "No live connection to the studio: reconnecting. What this screen shows may be out of date.");
      document.body.prepend(bar);
    }
    onState(up);
  };
  function open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${scheme}://${location.host}${ROOT}/ws?${query}`);
    ws.onopen = () => { delay = 500; state(true); };
    ws.onmessage = (ev) => {
      try {
        const msg = JSON.parse(ev.data);
        if (msg.type === "session") sessionNotice(msg.expires_in);
        else onMessage(msg);
      } catch (e) { console.error(e); }
    };
    ws.onclose = (ev) => {
      state(false);
      if (ev.code === 4401) { toLogin(); return; }
      if (ev.code === 4403) { toast("This page is not allowed for your role.", "bad"); return; }
      if (!stopped) setTimeout(open, delay);
      delay = Math.min(delay * 2, 8000);
    };
  }
  open();
  return { close() { stopped = true; if (ws) ws.close(); } };
}

// --- session ending --------------------------------------------------------------------------------------

let sessionTimer = null;

/** Five minutes before the session ends, a bar says so and offers to stay signed in. */
export function sessionNotice(expiresIn) {
  const deadline = Date.now() + expiresIn * 1000;
  clearInterval(sessionTimer);
  let bar = document.getElementById("session-bar");
  if (expiresIn > 300) { if (bar) bar.remove(); return; }
  if (!bar) {
    const text = el("span", { id: "session-left" });
    const stay = el("button", { type: "button", class: "primary", id: "stay-signed-in", onclick: async () => {
      try { const me = await api("/session", { method: "POST", body: {} }); sessionNotice(me.expires_in); }
      catch (e) { toast(e.message, "bad"); }
    } }, "Stay signed in");
    bar = el("div", { id: "session-bar", class: "panel row", role: "alert" }, text, stay);
    document.body.prepend(bar);
  }
  const show = () => {
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    document.getElementById("session-left").textContent =
      `Your session ends in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}.`;
  };
  show();
  sessionTimer = setInterval(show, 1000);
}

// --- keypad and approval -----------------------------------------------------------------------------------

/** A numeric keypad that types into `input` (studio touchscreens may have no keyboard). */
export function keypad(input) {
  const pad = el("div", { class: "keypad", "aria-label": "keypad" });
  for (const key of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "Clear", "0", "Del"]) {
    pad.append(el("button", {
      type: "button", "aria-label": key === "Del" ? "Delete last digit" : key,
      onclick: () => {
        if (key === "Clear") input.value = "";
        else if (key === "Del") input.value = input.value.slice(0, -1);
        else input.value += key;
        input.dispatchEvent(new Event("input"));
      },
    }, key));
  }
  return pad;
}

/** The supervisor's sign-in inside a dialog (four eyes): returns {node, value(), show(), reset()}. */
export function approvalBox(purpose) {
  const user = el("input", { name: "approver", autocomplete: "off", autocapitalize: "none", spellcheck: "false",
    "aria-label": "Supervisor user name" });
  const pin = el("input", { name: "approver-pin", type: "password", inputmode: "numeric", autocomplete: "off",
    "aria-label": "Supervisor PIN" });
  const node = el("div", { class: "approval" },
    el("h3", {}, "Supervisor approval"),
    el("p", {}, `${purpose} needs a supervisor. The supervisor signs in here; both names are recorded.`),
    el("label", {}, "Supervisor user name"), user,
    el("label", {}, "Supervisor PIN"), pin, keypad(pin));
  return {
    node,
    value: () => (user.value.trim() ? { username: user.value.trim(), secret: pin.value } : null),
    show(visible) { node.classList.toggle("hidden", !visible); },
    reset() { user.value = ""; pin.value = ""; },
  };
}

/** A modal dialog: `build(dialog)` fills it; resolves when it closes. */
export function modal(title, build) {
  const dialog = el("dialog", { "aria-label": title });
  dialog.append(el("h1", {}, title));
  const error = el("div", { class: "error hidden", role: "alert" });
  dialog.append(error);
  build(dialog, {
    fail(message) { error.textContent = message; error.classList.remove("hidden"); error.scrollIntoView(); },
    ok() { error.classList.add("hidden"); },
    close() { dialog.close(); },
  });
  document.body.append(dialog);
  dialog.addEventListener("close", () => dialog.remove());
  dialog.showModal();
  return dialog;
}

export function dialogButtons(...buttons) {
  return el("div", { class: "actions" }, ...buttons);
}
