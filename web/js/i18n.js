// Strings for every player-facing text, in English, Korean and Japanese.
//
// Keys live in /i18n/{lang}.json (identical key sets, checked by tests/web/test_i18n.py).
// A string may hold {name} parameters and [[term]] vocabulary tokens: [[bet]], [[Bet]] and the
// like are replaced by the current title's own words ("play"/"bet", "facilitator"/"dealer"),
// read from the keys vocab.<vocabulary>.<term>; a capitalised token gives the capitalised word.

export const LANGUAGES = ["en", "ko", "ja"];
const STORAGE_KEY = "boundless.lang";
const DEFAULT_VOCABULARY = "boundless";

const tables = {};
let language = "en";
let vocabulary = DEFAULT_VOCABULARY;
const listeners = new Set();

async function fetchTable(lang) {
  if (!tables[lang]) {
    const response = await fetch(`/i18n/${lang}.json`, { cache: "no-cache" });
    if (!response.ok) throw new Error(`strings for ${lang}: HTTP ${response.status}`);
    tables[lang] = await response.json();
  }
  return tables[lang];
}

function preferredLanguage() {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (LANGUAGES.includes(stored)) return stored;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const base = String(wanted).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export async function initI18n() {
  await fetchTable("en");
  await setLanguage(preferredLanguage());
}

export function currentLanguage() {
  return language;
}

export async function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) return;
  await fetchTable(lang);
  language = lang;
  localStorage.setItem(STORAGE_KEY, lang);
  document.documentElement.lang = lang;
  translateDom(document);
  for (const listener of listeners) listener(lang);
}

export function onLanguageChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function setVocabulary(name) {
  vocabulary = name || DEFAULT_VOCABULARY;
}

export function hasKey(key) {
  return key in (tables[language] || {}) || key in (tables.en || {});
}

function lookup(key) {
  const own = tables[language]?.[key];
  if (own !== undefined) return own;
  const english = tables.en?.[key];
  return english !== undefined ? english : null;
}

function term(word, vocab) {
  const lower = word.charAt(0).toLowerCase() + word.slice(1);
  const text = lookup(`vocab.${vocab}.${lower}`) ?? lookup(`vocab.${DEFAULT_VOCABULARY}.${lower}`);
  if (text === null) return word;
  if (word !== lower && language === "en") return text.charAt(0).toUpperCase() + text.slice(1);
  return text;
}

/** The string for ``key`` with its parameters and the title's vocabulary filled in. */
export function t(key, params = {}, vocab = vocabulary) {
  const text = lookup(key);
  if (text === null) return key;
  return fill(text, params, vocab);
}

function fill(text, params, vocab) {
  return text
    .replace(/\[\[([A-Za-z_]+)\]\]/g, (_, word) => term(word, vocab))
    .replace(/\{([a-z_0-9]+)\}/g, (whole, name) =>
      name in params ? String(params[name]) : whole,
    );
}

/** Fill every [data-i18n] element below ``root``; data-i18n-attr="aria-label:key,title:key". */
export function translateDom(root) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of element.dataset.i18nAttr.split(",")) {
      const [attribute, key] = pair.split(":").map((part) => part.trim());
      if (attribute && key) element.setAttribute(attribute, t(key));
    }
  }
}
