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
  if (typeof v === "object") return words(v);
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
  if (isTwentyOne(result)) return twentyOneNode(result);
  const parts = Object.entries(result).filter(([k]) => !HISTORY_SKIP.has(k)).map(([k, v]) =>
    el("div", { class: "position" }, el("div", { class: "label" }, k.replace(/_/g, " ")), valueNode(k, v, ctx)));
  return el("div", { class: "result", id: "result-fields" }, parts);
}

/** A result in words and symbols, short enough for the history strip and the tables list: "17 red",
 * "Dealer 19 · Seat 1 20 · Seat 2 bust", "player 7\u2660 K\u2665 | banker ...", "dice 1 3 6". Never raw JSON. */
export function resultText(result) {
  if (!result || typeof result !== "object") return result === null || result === undefined ? "" : String(result);
  if (result.number !== undefined && !Array.isArray(result.number)) {
    return [String(result.number), result.color ? String(result.color) : ""].filter(Boolean).join(" ");
  }
  if (isTwentyOne(result)) return twentyOneText(result);
  return Object.entries(result)
    .filter(([k, v]) => v !== null && v !== undefined && !HISTORY_SKIP.has(k))
    .map(([k, v]) => `${k.replace(/_/g, " ")} ${words(v)}`)
    .join(" | ");
}

//: keys that are detail, not the result a person looks for in the history (the deal order, who decided)
const HISTORY_SKIP = new Set(["decisions", "first_cards", "device_result"]);

function cardText(code) {
  if (!CARD_RE.test(code) || code === "JK") return code;
  return (code[0] === "T" ? "10" : code[0]) + SUITS[code[1]];
}

/** A value in a few words: cards as symbols, a hand by its total, a list of hands one by one. */
function words(v, depth = 0) {
  if (v === null || v === undefined) return "\u2014";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v !== "object") return typeof v === "string" && CARD_RE.test(v) ? cardText(v) : String(v);
  if (Array.isArray(v)) {
    if (!v.length) return "none";
    return v.map((x) => words(x, depth + 1)).join(depth ? ", " : " ");
  }
  if (v.total !== undefined) return handText(v);
  if (depth >= 2) return Object.keys(v).length ? "\u2026" : "";
  return Object.entries(v).filter(([, x]) => x !== null && x !== undefined)
    .map(([k, x]) => `${k.replace(/_/g, " ")} ${words(x, depth + 1)}`).join(", ");
}

function handText(h) {
  if (h.blackjack) return "blackjack";
  if (h.bust) return "bust";
  return `${h.soft ? "soft " : ""}${h.total}`;
}

function isTwentyOne(r) { return r.dealer && typeof r.dealer === "object" && r.dealer.total !== undefined; }

/** Blackjack's result big: the dealer's cards and each hand's, with their totals. */
function twentyOneNode(r) {
  const hand = (label, h) => el("div", { class: "position" }, el("div", { class: "label" }, `${label}: ${handText(h)}`),
    el("div", { class: "cards" }, (h.cards || []).map(cardNode)));
  const parts = [hand("Dealer", r.dealer)];
  if (r.common) parts.push(hand("Common hand", r.common));
  for (const s of Array.isArray(r.seats) ? r.seats : []) {
    const seat = String(s.seat).replace(/^seat_/, "").replace(/_/g, " ");
    const hands = s.hands || [];
    hands.forEach((h) => parts.push(hand(`Seat ${seat}${hands.length > 1 ? ` hand ${h.hand}` : ""}`, h)));
  }
  return el("div", { class: "result", id: "result-fields" }, parts);
}

/** Blackjack and its cousins: the dealer's hand and each seat's (or the common hand), by total. */
function twentyOneText(r) {
  const parts = [`Dealer ${handText(r.dealer)}`];
  if (r.common) parts.push(`Common hand ${handText(r.common)}`);
  for (const s of Array.isArray(r.seats) ? r.seats : []) {
    const seat = String(s.seat).replace(/^seat_/, "").replace(/_/g, " ");
    const hands = (s.hands || []).map(handText).join(" / ");
    parts.push(`Seat ${seat} ${hands || "\u2014"}`);
  }
  return parts.join(" \u00b7 ");
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
  if (ctx.family === "dice") box.append(diceLive(events, ctx));
  // the last number of each source (the wheel; an overhead camera reads every ball at rest)
  const numbers = {};
  for (const e of events) if (e.kind === "wheel_result") numbers[e.data.device_id || "wheel"] = e.data;
  for (const [device, d] of Object.entries(numbers)) {
    const read = d.numbers && d.numbers.length ? d.numbers.join(" and ") : d.number;
    box.append(el("p", { class: "caption", "data-device": device }, `The ${cameraName(device)} read ${read}.`));
  }
  return box;
}

// --- device events in the dealer's words, per family ----------------------------------------------------------

//: a camera frame's reason (devices/camera/events.py) as a dealer says it
const DICE_MOTION = {
  first: "watching the tray", motion: "the dice are moving", settling: "the dice are settling",
  still: "the dice are at rest", requested: "watching the tray",
};

function cameraName(deviceId) { return String(deviceId || "camera").split("/").pop().replace(/[-_]/g, " "); }

/** A dice table: each camera's latest state in words (moving, settling, at rest), and the faces the studio read
 * from it once it has read them (the round's result; the faces as dice). */
function diceLive(events, ctx) {
  const last = {};
  for (const e of events) if (e.kind === "camera_frame") last[e.data.device_id || "camera"] = e;
  const box = el("div", { id: "dice-live" });
  const result = ctx.round && ctx.round.result;
  for (const [device, e] of Object.entries(last)) {
    const d = e.data;
    // once the faces are read the dice are at rest, whatever the last frame sent said (it may be "settling")
    const words = d.moving ? DICE_MOTION.motion : result ? DICE_MOTION.still : DICE_MOTION[d.reason] || DICE_MOTION.still;
    box.append(el("p", { class: "caption", "data-device": device }, `${cameraName(device)}: ${words}`));
  }
  if (result) {
    const faces = Array.isArray(result.dice) && isDice(result.dice)
      ? el("div", { class: "dice" }, result.dice.map(dieNode)) : renderResult(result, { ...ctx, game: null });
    box.append(el("div", { class: "row", id: "dice-read" }, el("span", { class: "caption" }, "Faces read:"), faces));
  } else if (Object.keys(last).length) {
    box.append(el("p", { class: "muted", id: "dice-read" }, "No faces read yet: the dice must come to rest."));
  }
  return box;
}

//: the neutral warning codes of a source that reads the wheel from a picture (devices/events.py)
const READING_CODES = new Set(["rotor_not_found", "ball_on_fret", "ball_count", "no_ball"]);

/** One device event for the dealer's list, in words; null to leave it out of the list (a dice camera's frames are
 * summed up by diceLive instead: one line per camera, not one per frame). */
export function eventWords(e, ctx = {}) {
  if (e.kind === "camera_frame") return null;
  if (e.kind === "camera_status") {
    const d = e.data || {};
    return `${cameraName(d.device_id)}: ${d.frozen ? "the picture is frozen" : `picture ${d.width}\u00d7${d.height}`}`;
  }
  const d = e.data || {};
  // a wheel's events name their source by the device's role: the wheel, or a second reader of it (a camera)
  if (e.kind === "wheel_result" && d.game_counter == null) {
    const pockets = d.numbers && d.numbers.length ? d.numbers : [d.number];
    return `${cameraName(d.device_id)}: ball${pockets.length === 1 ? "" : "s"} at rest in ${pockets.join(", ")}`;
  }
  if (e.kind === "ball_dropped" || e.kind === "roulette_ball_spin") return `${cameraName(d.device_id)}: ${e.summary}`;
  if (e.kind === "wheel_warning" && !d.self_test && READING_CODES.has(d.code)) {
    return `${cameraName(d.device_id)} cannot read: ${String(d.code || "").replace(/_/g, " ")}`;
  }
  // the camera's own kinds, in a log written before it spoke the neutral wheel events
  if (e.kind === "roulette_balls_at_rest") {
    return `camera: ball${(d.pockets || []).length === 1 ? "" : "s"} at rest in ${(d.pockets || []).join(", ") || "?"}`;
  }
  if (e.kind === "roulette_camera_unreadable") return `camera cannot read: ${String(d.reason || "").replace(/_/g, " ")}`;
  return e.summary;
}
