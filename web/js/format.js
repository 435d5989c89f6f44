// Display helpers: amounts (integer minor units), odds, ratios, cards and times.
import { currentLanguage, t } from "./i18n.js";

export const MINOR_DIGITS = 2;
const LOCALES = { en: "en-US", ko: "ko-KR", ja: "ja-JP" };

export function locale() {
  return LOCALES[currentLanguage()] || "en-US";
}

/** 123456 → "1,234.56" in the current language's grouping. */
export function money(amount) {
  if (amount === null || amount === undefined) return "–";
  return new Intl.NumberFormat(locale(), {
    minimumFractionDigits: MINOR_DIGITS,
    maximumFractionDigits: MINOR_DIGITS,
  }).format(amount / 10 ** MINOR_DIGITS);
}

/** Amounts for chips: no decimals when whole. */
export function shortMoney(amount) {
  const whole = amount % 10 ** MINOR_DIGITS === 0;
  return new Intl.NumberFormat(locale(), {
    minimumFractionDigits: whole ? 0 : MINOR_DIGITS,
    maximumFractionDigits: MINOR_DIGITS,
    notation: amount >= 1e7 ? "compact" : "standard",
  }).format(amount / 10 ** MINOR_DIGITS);
}

export function signedMoney(amount) {
  if (amount === null || amount === undefined) return "–";
  return (amount > 0 ? "+" : amount < 0 ? "−" : "") + money(Math.abs(amount));
}

export function percent(fraction, digits = 0) {
  return new Intl.NumberFormat(locale(), {
    style: "percent",
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(fraction);
}

/** A ratio "1/2" as a percentage of the stake. */
export function ratioPercent(text) {
  const [numerator, denominator] = String(text).split("/").map(Number);
  if (!denominator) return String(text);
  const value = numerator / denominator;
  return percent(value, Number.isInteger(value * 100) ? 0 : 1);
}

export function dateTime(value) {
  if (value === null || value === undefined || value === "") return "–";
  // An ISO time without an offset is the server's UTC.
  const text = String(value);
  const zoned = /T.*(Z|[+-]\d\d:?\d\d)$/.test(text) || !text.includes("T") ? text : `${text}Z`;
  const date = typeof value === "number" ? new Date(value) : new Date(zoned);
  if (Number.isNaN(date.getTime())) return String(value);
  return new Intl.DateTimeFormat(locale(), { dateStyle: "medium", timeStyle: "medium" }).format(date);
}

// ---- cards ------------------------------------------------------------------------------------
export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = new Set(["H", "D"]);

export function parseCard(code) {
  const text = String(code).toUpperCase();
  const rank = text.startsWith("10") ? "T" : text[0];
  const suit = text[text.length - 1];
  return { rank, suit, label: rank === "T" ? "10" : rank, symbol: SUITS[suit] || "?", red: RED.has(suit) };
}

/** "AS" → "A♠" (text form for logs and screen readers). */
export function cardText(code) {
  const card = parseCard(code);
  return card.label + card.symbol;
}

/** A card drawn with CSS; ``null`` draws the back (the face-down hole card). */
export function cardElement(code, { small = false, fresh = false } = {}) {
  const element = document.createElement("span");
  element.className = "card" + (small ? " card-small" : "") + (fresh ? " card-fresh" : "");
  element.setAttribute("role", "img");
  if (code === null || code === undefined) {
    element.classList.add("card-back");
    element.setAttribute("aria-label", t("card.face_down"));
    return element;
  }
  const card = parseCard(code);
  element.classList.add(card.red ? "card-red" : "card-black");
  element.dataset.card = String(code);
  element.setAttribute("aria-label", t("card.name", { rank: t(`rank.${card.rank}`), suit: t(`suit.${card.suit}`) }));
  element.innerHTML =
    `<span class="card-corner"><span class="card-rank">${card.label}</span>` +
    `<span class="card-suit">${card.symbol}</span></span>` +
    `<span class="card-pip" aria-hidden="true">${card.symbol}</span>` +
    `<span class="card-corner card-corner-end" aria-hidden="true"><span class="card-rank">${card.label}</span>` +
    `<span class="card-suit">${card.symbol}</span></span>`;
  return element;
}

// ---- DOM helpers -----------------------------------------------------------------------------
/** ``onsubmit`` of a form of one text field: the page stays; a blank value (spaces only) shows
 * ``blank`` in ``message`` (and focuses the field where ``focus``); any other goes to ``submit``. */
export function onTextSubmit(input, message, blank, submit, { focus = false } = {}) {
  return async (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (!value) {
      message.textContent = blank;
      if (focus) input.focus();
      return;
    }
    await submit(value);
  };
}

/** h("button#id.primary.big", {onclick}, "text", child) → element. */
export function h(spec, attributes = {}, ...children) {
  const [, tag, rest] = spec.match(/^([a-z0-9]*)(.*)$/i);
  const element = document.createElement(tag || "div");
  const classes = [];
  for (const [, sigil, name] of rest.matchAll(/([.#])([^.#]+)/g)) {
    if (sigil === "#") element.id = name;
    else classes.push(name);
  }
  if (classes.length) element.className = classes.join(" ");
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}
