// Keyboard shortcuts at the table: one key per action, shown on its button; "?" lists them.
import { h } from "../../format.js";
import { t } from "../../i18n.js";
import { actionName } from "../rule_text.js";
import { clearDraft, decide, insure, placeBets, rebet, selectChip, undo } from "./actions.js";
import { awaitingStep, changed, chipValues, openOffers, positionOn, pub, v } from "./state.js";

/** name → key; the decision keys work only while the button is enabled. */
export const SHORTCUTS = {
  hit: "h", stand: "s", double: "d", split: "p", surrender: "r", surrender20: "t",
  insure: "i", decline: "n",
  place: "b", undo: "u", clear: "c", rebet: "a", rebet2: "x",
};
/** The decision buttons, in the order the dock shows them. */
export const DECISIONS = ["hit", "stand", "double", "split", "surrender", "surrender20"];

export function keyHint(name) {
  return SHORTCUTS[name]?.toUpperCase() ?? null;
}

export function onKey(event) {
  if (!v || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target?.closest?.("input, select, textarea, [contenteditable='true']")) return;
  const key = event.key.toLowerCase();
  if (event.key === "?") {
    v.help = !v.help;
    changed();
    event.preventDefault();
    return;
  }
  if (event.key === "Escape" && v.help) {
    v.help = false;
    changed();
    return;
  }
  const p = pub();
  let done = false;
  const position = p.phase === "decisions" ? positionOn(p.current_spot) : null;
  for (const action of DECISIONS) {
    if (key !== SHORTCUTS[action] || !position) continue;
    // The same guard as the button's: a legal action and no answer sent for this step yet.
    if (position.legal_actions.includes(action) && !awaitingStep()) decide(p.current_spot, action);
    done = true;
  }
  const offer = openOffers()[0];
  if (offer && key === SHORTCUTS.insure) done = (insure(offer.spot, offer.insurance_offer), true);
  if (offer && key === SHORTCUTS.decline) done = (insure(offer.spot, null), true);
  if (p.phase === "betting") {
    const keyed = {
      [SHORTCUTS.place]: placeBets, [SHORTCUTS.undo]: undo, [SHORTCUTS.clear]: clearDraft,
      [SHORTCUTS.rebet]: () => rebet(1), [SHORTCUTS.rebet2]: () => rebet(2),
    };
    if (keyed[key]) {
      keyed[key]();
      done = true;
    }
    const chips = chipValues();
    const digit = Number(event.key);
    if (Number.isInteger(digit) && digit >= 1 && digit <= chips.length) {
      selectChip(chips[digit - 1]);
      done = true;
    }
  }
  if (done) event.preventDefault();
}

export function helpToggle() {
  v.help = !v.help;
  changed();
}

/** The "?" panel: every shortcut with what it does at this table. */
export function helpPanel() {
  if (!v.help) return null;
  const rows = [
    ...DECISIONS.filter(actionShown).map((action) => [keyHint(action), actionName(v.rules, action)]),
    [keyHint("insure"), t("keys.insure")],
    [keyHint("decline"), t("insurance.decline")],
    [`1–${chipValues().length}`, t("keys.chips")],
    [keyHint("place"), v.rules.table.shared ? t("bet.place") : t("bet.deal")],
    [keyHint("undo"), t("bet.undo")],
    [keyHint("clear"), t("bet.clear")],
    [keyHint("rebet"), t("bet.rebet")],
    [keyHint("rebet2"), t("bet.rebet_double")],
    ["?", t("keys.help")],
  ];
  return h("section.panel.key-help#key-help", { role: "dialog", "aria-modal": "true", "aria-labelledby": "key-help-heading" },
    h("h2#key-help-heading", {}, t("keys.heading")),
    h("dl.key-list", {}, rows.map(([key, what]) => h("div.key-row", {}, h("dt", {}, h("kbd", {}, key)), h("dd", {}, what)))),
    h("button.btn.btn-ghost#key-help-close", { type: "button", onclick: () => { v.help = false; changed(); } }, t("common.close")),
  );
}

/** Whether the title has this decision at all (its button is shown, enabled or not). */
export function actionShown(action) {
  const r = v.rules;
  if (action === "surrender20") return r.split?.offered === "basic_strategy_pairs";
  if (action === "surrender") return r.surrender?.allowed;
  if (action === "double") return r.double?.allowed;
  if (action === "split") return r.split?.allowed;
  return true;
}
