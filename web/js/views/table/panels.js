// The side panel (results, the step card, the table log) and the strip of the last rounds'
// dealer results above the felt.
import { cardElement, cardText, h, money, signedMoney } from "../../format.js";
import { t } from "../../i18n.js";
import { patternName, sideBetName } from "../rule_text.js";
import { historyPanel, loadHistory, loadStats, statsPanel } from "./history.js";
import { helpToggle } from "./keys.js";
import { setSound, soundOn } from "./sound.js";
import { changed, myPositions, netOfPositions, pub, settledNet, v } from "./state.js";

/** The panels, one at a time under tabs: beside the felt on wide screens, a drawer elsewhere. */
const PANELS = {
  results: () => [resultPanel(), stepPanel()],
  history: () => [historyPanel()],
  stats: () => [statsPanel()],
  log: () => [logPanel()],
};
const TAB_LABELS = { results: "table.tab_results", history: "table.tab_history", stats: "table.tab_stats", log: "table.tab_log" };

export function sidePanel() {
  const open = v.panel in PANELS ? v.panel : "results";
  const tabs = h("div.panel-tabs", { role: "tablist", "aria-label": t("table.panels") },
    Object.keys(PANELS).map((name) =>
      h(`button.panel-tab${name === open ? ".panel-tab-on" : ""}`, {
        type: "button",
        role: "tab",
        id: `tab-${name}`,
        "aria-selected": String(name === open),
        "aria-controls": "panel-body",
        "aria-expanded": String(name === open && Boolean(v.drawer)),
        onclick: () => openPanel(name),
      }, t(TAB_LABELS[name])),
    ),
    h(`button.panel-tab.sound-toggle#sound-toggle${soundOn() ? ".panel-tab-on" : ""}`, {
      type: "button",
      "aria-pressed": String(soundOn()),
      "aria-label": t("table.sound"),
      title: t("table.sound"),
      onclick: () => { setSound(!soundOn()); changed(); },
    }, "♪"),
    h("button.panel-tab.key-help-open#key-help-open", { type: "button", "aria-keyshortcuts": "?", "aria-label": t("keys.open"), title: t("keys.open"), onclick: helpToggle }, "?"),
  );
  const body = h("div.panel-body#panel-body", { role: "tabpanel", "aria-labelledby": `tab-${open}` },
    h("button.btn.btn-ghost.btn-small.drawer-close#drawer-close", { type: "button", onclick: () => { v.drawer = false; changed(); } }, t("common.close")),
    PANELS[open](),
  );
  return h(`aside.side-panel${v.drawer ? ".drawer-open" : ""}`, { dataset: { panel: open } }, tabs, body);
}

/** A tab opens its panel; on a narrow screen the same tab again closes the drawer. */
function openPanel(name) {
  v.drawer = !(v.drawer && v.panel === name);
  v.panel = name;
  if (name === "stats") loadStats();
  if (name === "history") loadHistory();
  changed();
}

/** This round's results once its `settled` is shown; until then the last settled round. */
export function resultPanel() {
  const settled = v.settled?.round_id === v.roundId ? v.settled : null;
  const current = settled && myPositions().length ? { roundId: v.roundId, positions: myPositions(), balance: settled.balance, net: settledNet(settled) } : null;
  const shown = current || v.lastResult;
  const region = h("section.panel.result-panel#results", {
    "aria-labelledby": "results-heading",
    dataset: { roundId: shown?.roundId ?? "" },
  }, h("h2#results-heading", {}, shown && !current ? t("result.last_round") : t("result.heading")));
  if (!shown) {
    region.append(h("p.muted", {}, myPositions().length ? t("result.pending") : t("result.none")));
    return region;
  }
  const net = shown.net ?? netOfPositions(shown.positions);
  region.append(
    h(`p.result-net${net > 0 ? ".good" : net < 0 ? ".bad" : ""}#result-net`, { dataset: { net } }, signedMoney(net)),
  );
  const rows = [];
  for (const position of shown.positions) {
    position.hands.forEach((hand, index) => {
      rows.push([
        (v.rules.table.spots > 1 ? t("table.spot", { n: position.spot }) + " · " : "") +
          (position.hands.length > 1 ? t("table.hand_n", { n: index + 1 }) : t("table.your_hand")),
        hand.outcome ? t(`outcome.${hand.outcome}`) : t(`status.${hand.status}`),
        money(hand.bet),
        money(hand.payout ?? 0),
      ]);
    });
    // Even money shows as the hand's own outcome; only real insurance gets a row of its own.
    if (position.insurance && position.insurance.kind !== "even_money") {
      rows.push([t(`insurance.${position.insurance.kind}`), position.insurance.outcome ? t(`outcome.${position.insurance.outcome}`) : "–", money(position.insurance.stake), money(position.insurance.payout ?? 0)]);
    }
    for (const [key, side] of Object.entries(position.side_bets || {})) {
      rows.push([
        sideBetName(v.rules, key),
        side.wheel?.length ? side.wheel.join(" · ") : side.outcome === "win" ? patternName(v.rules, key, side.pattern) || t("outcome.win") : side.outcome ? t("bet.side_lost") : "–",
        money(side.stake),
        money(side.payout ?? 0),
      ]);
    }
  }
  region.append(
    h("table.result-table", {},
      h("thead", {}, h("tr", {}, [t("result.what"), t("result.outcome"), t("result.staked"), t("result.paid")].map((label) => h("th", { scope: "col" }, label)))),
      h("tbody", {}, rows.map((row) => h("tr", {}, row.map((cell, i) => h(i >= 2 ? "td.num" : "td", {}, cell))))),
    ),
  );
  if (typeof shown.balance === "number") {
    region.append(h("p.muted#result-balance", { dataset: { balance: shown.balance } }, t("result.balance_now", { amount: money(shown.balance) })));
  }
  return region;
}

export function stepPanel() {
  if (!v.step) return null;
  const shared = pub().spots?.[String(v.step.spot)];
  const many = shared && v.rules.table.spots > 1;
  return h("section.panel.step-panel#step-panel", {},
    h("h2", {}, t("table.step_heading", { n: v.step.step })),
    h("div.step-show", {},
      cardElement(v.step.card, { fresh: performance.now() - v.step.at < 600 }),
      h("p", {}, t("table.step_takers", { count: v.step.takers }), many ? h("br") : null, many ? t("table.spot", { n: v.step.spot }) : null),
    ),
  );
}

export function logPanel() {
  return h("section.panel.log-panel", {},
    h("h2", {}, t("table.log")),
    v.log.length
      ? h("ol.table-log#table-log", { reversed: true, start: v.log.length }, v.log.map((entry) => h("li", {}, logText(entry))))
      : h("p.muted", {}, t("table.log_empty")),
  );
}

/** A log line in the language shown now: amounts and cards are formatted here too. */
export function logText(entry) {
  const worded = (params) => Object.fromEntries(Object.entries(params).map(([name, value]) => {
    if (value && typeof value === "object") {
      if ("money" in value) return [name, money(value.money)];
      if ("signed" in value) return [name, signedMoney(value.signed)];
      if ("card" in value) return [name, cardText(value.card)];
    }
    return [name, value];
  }));
  return entry.parts.map(([key, params]) => t(key, worded(params || {}))).join(" ");
}

/** The dealer's final hand of each of the last rounds this page saw, newest first. */
export function recentStrip() {
  if (!v.recent.length) return null;
  return h("ol.recent-strip#recent-rounds", { "aria-label": t("table.recent_rounds") },
    v.recent.map((entry) =>
      h(`li.recent-round${entry.total > 21 ? ".recent-bust" : ""}`, { title: t("table.round_dealer", { n: entry.roundNo, total: entry.total }) },
        h("span.recent-n", {}, `#${entry.roundNo}`),
        h("span.recent-total", {}, entry.total > 21 ? t("table.bust_short") : String(entry.total)),
      ),
    ),
  );
}
