// How results and device readings look on the dealer screen, generic over the result's JSON.
//
// EXTENSION POINT: a game may register its own renderer: `renderers[game_id] = (result, ctx) => Node`.
// Without one, a result is drawn from its shape: a roulette number big in its colour; lists of card codes
// as cards in their positions; lists of dice faces (1-6) as dice; other lists of numbers as balls; anything
// else as names and values.

import { el } from "./common.js";

export const renderers = {};

const CARD_RE = /^(?:[A2-9TJQK][SHDC]|JK)$/;
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const DIE_FACES = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];

export function cardNode(code) {
  if (!code || !CARD_RE.test(code)) {
    return el("div", { class: "cardface unknown", "aria-label": "card not read" }, "?");
  }
  if (code === "JK") return el("div", { class: "cardface" }, "JK");
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = code[1];
  return el("div", { class: "cardface" + (suit === "H" || suit === "D" ? " red" : ""),
    "aria-label": code }, rank + SUITS[suit]);
}

export function dieNode(face) {
  return el("div", { class: "die", "aria-label": `die ${face}` }, DIE_FACES[face] || String(face));
}

function isCards(v) { return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string" && CARD_RE.test(x)); }
function isDice(v) { return Array.isArray(v) && v.length > 0 && v.every((x) => Number.isInteger(x) && x >= 1 && x <= 6); }
function isBalls(v) {
  return Array.isArray(v) && v.length > 0 && v.every((x) => Number.isInteger(x) || (typeof x === "string" && x.length <= 4));
}

function valueNode(key, v, ctx) {
  if (isCards(v)) return el("div", { class: "cards" }, v.map(cardNode));
  if (typeof v === "string" && CARD_RE.test(v) && /card/.test(key)) return cardNode(v);
  if (isDice(v) && (ctx.family === "dice" || /dice/.test(key))) return el("div", { class: "dice" }, v.map(dieNode));
  if (Number.isInteger(v) && ctx.family === "dice" && v >= 1 && v <= 6 && !/point|total/.test(key)) return dieNode(v);
  if (isBalls(v) && (ctx.family === "balls" || /ball/.test(key) || v.every((x) => Number.isInteger(x)))) {
    return el("div", { class: "balls" }, v.map((n) => el("div", { class: "ball" }, n)));
  }
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    return el("dl", { class: "kv" }, Object.entries(v).flatMap(([k, x]) => [el("dt", {}, k), el("dd", {}, fmt(x))]));
  }
  return el("span", { class: "caption" }, fmt(v));
}

function fmt(v) {
  if (v === null || v === undefined) return "\u2014";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** The result, big. `ctx` = {game, family}. */
export function renderResult(result, ctx = {}) {
  if (!result) return el("div", { class: "result" }, el("span", { class: "muted" }, "No result yet"));
  const custom = renderers[ctx.game];
  if (custom) return custom(result, ctx);
  if (result.number !== undefined && Object.keys(result).every((k) => k === "number" || k === "color")) {
    const color = result.color || "";
    return el("div", { class: "result" },
      el("div", { class: `number ${color}`, id: "result-number", "aria-label": `number ${result.number}` },
        result.number),
      el("div", { class: "caption" }, color ? color[0].toUpperCase() + color.slice(1) : ""));
  }
  const parts = Object.entries(result).map(([k, v]) =>
    el("div", { class: "position" }, el("div", { class: "label" }, k.replace(/_/g, " ")), valueNode(k, v, ctx)));
  return el("div", { class: "result", id: "result-fields" }, parts);
}

/** Short text of a result for the history strip. */
export function resultText(result) {
  if (!result) return "";
  if (result.number !== undefined) return String(result.number);
  return Object.values(result).map((v) => Array.isArray(v) ? v.join(" ") : fmt(v)).join(" | ");
}

/** What the devices read during the open round: cards as drawn, numbers, faces. */
export function renderRoundEvents(events, ctx = {}) {
  const cards = events.filter((e) => e.kind === "card_drawn");
  const box = el("div", { class: "live-round" });
  if (cards.length) {
    box.append(el("div", { class: "cards", id: "cards-drawn" },
      cards.map((e, i) => el("div", { class: "position" },
        el("div", { class: "label" }, `#${i + 1}`), cardNode(e.data.card)))));
  }
  const balls = events.filter((e) => e.kind === "ball_read");
  if (balls.length) {
    box.append(el("div", { class: "balls", id: "balls-drawn" },
      balls.map((e) => el("div", { class: "ball" }, e.data.ball ?? "?"))));
  }
  const numbers = events.filter((e) => e.kind === "wheel_result");
  if (numbers.length) {
    const last = numbers[numbers.length - 1];
    box.append(el("p", { class: "caption" }, `The wheel read ${last.data.number}.`));
  }
  return box;
}
