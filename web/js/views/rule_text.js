// Words for data: title, side-bet and pattern names, odds and up-card lists, all read from the
// rule set (GET /api/v1/titles/{key}) so the text never drifts from the game.
import { h, locale, ratioPercent } from "../format.js";
import { hasKey, t } from "../i18n.js";

export function titleName(key, fallback) {
  return hasKey(`title.${key}`) ? t(`title.${key}`) : fallback || key;
}

export function sideBetRules(rules, key) {
  return (rules?.side_bets || []).find((bet) => bet.key === key) || null;
}

/** Offer groups in rule-set order: {group: [keys]} (a wheel bet on seats and on the dealer). */
export function sideBetGroups(rules) {
  const groups = {};
  for (const bet of rules?.side_bets || []) (groups[bet.offer_group || bet.key] ||= []).push(bet.key);
  return groups;
}

/** A side bet's name: by its key when translated, else by its kind, plus "on the dealer". */
export function sideBetName(rules, key) {
  const bet = sideBetRules(rules, key);
  const kind = bet?.kind || key;
  const base = hasKey(`side.${key}`) ? t(`side.${key}`) : hasKey(`side.${kind}`) ? t(`side.${kind}`) : key;
  const variant = bet?.variant && hasKey(`variant.${kind}.${bet.variant}`) ? t(`variant.${kind}.${bet.variant}`) : null;
  const named = variant ? t("side.with_variant", { name: base, variant }) : base;
  return bet?.target === "dealer" ? t("side.on_dealer", { name: named }) : named;
}

export function sideBetShortName(rules, key) {
  const bet = sideBetRules(rules, key);
  const kind = bet?.kind || key;
  const short = hasKey(`side_short.${kind}`) ? t(`side_short.${kind}`) : sideBetName(rules, key);
  return bet?.target === "dealer" ? t("side.on_dealer_short", { name: short }) : short;
}

export function patternName(rules, key, pattern) {
  if (!pattern) return "";
  const kind = sideBetRules(rules, key)?.kind || key;
  const name = `pattern.${kind}.${pattern}`;
  return hasKey(name) ? t(name) : pattern.replaceAll("_", " ");
}

/** "3:2" stays "3:2"; the words around it come from the strings. */
export function odds(text) {
  return String(text);
}

export function upCardName(value) {
  return value === 1 ? t("rank.A") : value === 10 ? t("rules.ten_value") : String(value);
}

/** [2,3,...,9] → "2–9"; [1,10] → "A, 10-value cards". */
export function upCardList(values) {
  const sorted = [...new Set(values || [])].sort((a, b) => a - b);
  const parts = [];
  let run = [];
  const flush = () => {
    if (run.length >= 3) parts.push(`${run[0]}–${run[run.length - 1]}`);
    else parts.push(...run.map(String));
    run = [];
  };
  for (const value of sorted) {
    if (value === 1 || value === 10) continue;
    if (run.length && value !== run[run.length - 1] + 1) flush();
    run.push(value);
  }
  flush();
  if (sorted.includes(1)) parts.unshift(upCardName(1));
  if (sorted.includes(10)) parts.push(upCardName(10));
  // "Ace or 10-value card": the values are alternatives, in the reader's own list style.
  if (typeof Intl.ListFormat === "function") return new Intl.ListFormat(locale(), { type: "disjunction" }).format(parts);
  return parts.join(t("list.separator"));
}

/** What the house keeps of a refund ratio: 4/5 back → "1/5" (shown as "Surrender 20%"). */
export function refundComplement(ratio) {
  const [n, d] = String(ratio).split("/").map(Number);
  return `${d - n}/${d}`;
}

/** A pay table as rows, highest first, for the rules page and the bet spot's help. */
export function payTable(rules, bet) {
  const rows = Object.entries(bet.pays || {}).map(([pattern, pays]) => {
    const [win, per] = String(pays).split(":").map(Number);
    return { pattern, pays, value: win / (per || 1) };
  });
  rows.sort((a, b) => b.value - a.value);
  return h("table.pay-table", {},
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("rules.pattern")), h("th", { scope: "col" }, t("rules.pays")))),
    h("tbody", {}, rows.map((row) =>
      h("tr", {}, h("td", {}, patternName(rules, bet.key, row.pattern)), h("td.num", {}, odds(row.pays))),
    )),
  );
}

/** How far a hand splits: once, or again up to split.max_hands hands, aces by their switch. */
export function splitLimitText(split) {
  if ((split?.max_hands ?? 2) <= 2) return [t("rules.action.split_once")];
  const aces = split.resplit_aces ? "rules.action.resplit_aces" : "rules.action.no_resplit_aces";
  return [t("rules.action.resplit", { n: split.max_hands }), t(aces)];
}

/** An action's button word; "surrender20" names what the house keeps ("Surrender 20%"). */
export function actionName(rules, action) {
  const refund = rules?.split?.decline_refund;
  return t(`action.${action}`, { pct: refund ? ratioPercent(refundComplement(refund)) : "" });
}
