// The rules page of a title, generated from its rule set: every number comes from the data.
import { api, failureOf, listOf } from "../api.js";
import { wheelFigure } from "./table/wheel.js";
import { h, money, percent, ratioPercent } from "../format.js";
import { setVocabulary, t } from "../i18n.js";
import { errorText } from "../session.js";
import { actionName, payTable, sideBetName, splitLimitText, titleName, upCardList } from "./rule_text.js";

let root = null;
let titleKey = null;
export const LAST_TITLE_KEY = "boundless.last_title";
let rules = null;
let titles = [];
let failure = null;

export async function mount(element, key) {
  root = element;
  titleKey = key ? decodeURIComponent(key) : null;
  rules = null;
  failure = null;
  render();
  failure = await failureOf(async () => {
    titles = listOf(await api.titles());
    // The Rules tab opens the game of the table you came from, else the first one.
    const last = sessionStorage.getItem(LAST_TITLE_KEY);
    if (!titleKey && titles.some((title) => title.key === last)) titleKey = last;
    if (!titleKey && titles.length) titleKey = titles[0].key;
    if (titleKey) rules = await api.title(titleKey);
  });
  render();
}

export function unmount() {
  root = null;
}

export function render() {
  if (!root) return;
  if (rules) setVocabulary(rules.title.vocabulary);
  const picker = h("nav.title-tabs", { "aria-label": t("rules.titles") },
    titles.map((title) =>
      h("a.tab", {
        href: `#/rules/${encodeURIComponent(title.key)}`,
        "aria-current": title.key === titleKey ? "page" : null,
      }, titleName(title.key, title.name)),
    ),
  );
  if (failure) {
    root.replaceChildren(h("h1.page-title", {}, t("rules.heading")), h("p.error", { role: "alert" }, errorText(failure)));
    return;
  }
  if (!rules) {
    root.replaceChildren(h("h1.page-title", {}, t("rules.heading")), picker, h("p.loading", {}, t("app.loading")));
    return;
  }
  root.replaceChildren(
    h("h1.page-title", {}, t("rules.page_title", { title: titleName(rules.title.key, rules.title.name) })),
    picker,
    h("article.rules-page.panel", { dataset: { title: rules.title.key } }, ...sections(rules)),
  );
}

function section(id, heading, ...items) {
  const list = items.flat().filter(Boolean);
  if (!list.length) return null;
  return h("section.rules-section", { id: `rules-${id}` }, h("h2", {}, heading), ...list);
}

function bullets(...lines) {
  const items = lines.flat().filter(Boolean);
  return items.length ? h("ul.rules-list", {}, items.map((line) => (line instanceof Node ? h("li", {}, line) : h("li", {}, line)))) : null;
}

function sections(r) {
  return [
    h("p.rules-version", {}, t("rules.version", { version: r.title.version })),
    r.title.example ? h("p.notice", {}, t("rules.example_title")) : null,
    section("overview", t("rules.overview"), bullets(overview(r))),
    section("cards", t("rules.cards"), bullets(cards(r))),
    section("limits", t("rules.limits"), bullets(limits(r))),
    section("round", t("rules.round"), bullets(roundFlow(r))),
    section("dealer", t("rules.dealer"), bullets(dealer(r))),
    section("actions", t("rules.actions"), actionTable(r)),
    section("insurance", t("rules.insurance"), bullets(insurance(r))),
    section("payouts", t("rules.payouts"), bullets(payouts(r))),
    section("timers", t("rules.timers"), bullets(timers(r))),
    section("side_bets", t("rules.side_bets"), sideBets(r)),
    section("fairness", t("rules.fairness"), bullets(fairness(r))),
  ].filter(Boolean);
}

function overview(r) {
  const lines = [];
  if (r.table.shared) {
    lines.push(t("rules.overview.shared"));
    if (r.table.spots > 1) lines.push(t("rules.overview.spots", { spots: r.table.spots, max: r.table.max_spots_per_player }));
    else lines.push(t("rules.overview.one_spot"));
  } else {
    lines.push(t("rules.overview.private", { spots: r.table.spots }));
  }
  lines.push(t("rules.overview.goal"));
  return lines;
}

function cards(r) {
  const lines = [
    r.shoe.decks === 1 ? t("rules.cards.one_deck") : t("rules.cards.decks", { n: r.shoe.decks }),
    t("rules.cards.values"),
    t("rules.cards.blackjack"),
  ];
  if (r.shoe.reshuffle_every_round) lines.push(t("rules.cards.reshuffle_each_round"));
  else lines.push(t("rules.cards.cut_card", { pct: percent(r.shoe.penetration) }));
  if (r.shoe.burn_after_shuffle) lines.push(t("rules.cards.burn"));
  return lines;
}

function limits(r) {
  const l = r.limits;
  const lines = [t("rules.limits.main", { min: money(l.min_main_amount), max: money(l.max_main_amount), unit: money(l.unit_amount) })];
  if (r.table.main_bet_max_multiple_of_right > 0) {
    lines.push(t("rules.limits.right_seat", { n: r.table.main_bet_max_multiple_of_right }));
  }
  return lines;
}

function roundFlow(r) {
  const lines = [t("rules.round.betting", { seconds: r.timers.betting_seconds })];
  lines.push(r.side_bets?.length ? t("rules.round.side_only") : null);
  lines.push(r.table.spots > 1 ? t("rules.round.deal_spots") : t("rules.round.deal"));
  if (r.table.shared) lines.push(t("rules.round.steps"));
  if (r.table.spots > 1) lines.push(t("rules.round.spot_order"));
  lines.push(
    r.autoplay.policy === "basic_strategy" ? t("rules.round.autoplay_strategy") : t("rules.round.autoplay_hit11"),
  );
  lines.push(t("rules.round.disconnect"));
  return lines;
}

function dealer(r) {
  const lines = [];
  if (r.dealer.hole_card === "peek") {
    lines.push(t("rules.dealer.hole_card"));
    lines.push(t("rules.dealer.peek", { cards: upCardList(r.dealer.peek_up_values) }));
  } else {
    lines.push(t("rules.dealer.no_hole_card"));
    lines.push(t("rules.dealer.no_hole_blackjack"));
  }
  lines.push(r.dealer.hits_soft_17 ? t("rules.dealer.hits_soft_17") : t("rules.dealer.stands_soft_17"));
  return lines;
}

function actionTable(r) {
  const rows = [
    ["hit", t("rules.action.hit")],
    ["stand", t("rules.action.stand")],
  ];
  if (r.double.allowed) {
    const parts = [t("rules.action.double")];
    parts.push(r.double.after_split ? t("rules.action.double_after_split") : t("rules.action.double_no_split"));
    if (r.double.after_split) parts.push(r.double.on_split_aces ? t("rules.action.double_split_aces") : t("rules.action.double_no_split_aces"));
    rows.push(["double", parts.join(" ")]);
  }
  if (r.split.allowed) {
    const parts = [r.split.pair_by === "rank" ? t("rules.action.split_rank") : t("rules.action.split_value")];
    parts.push(...splitLimitText(r.split));
    parts.push(r.split.split_aces_one_card ? t("rules.action.split_aces_one") : t("rules.action.split_aces_hit"));
    parts.push(t("rules.action.split_21"));
    if (r.split.offered === "basic_strategy_pairs") {
      parts.push(t("rules.action.split_chart", { action: actionName(r, "surrender20") }));
    }
    rows.push(["split", parts.join(" ")]);
  }
  if (r.split.offered === "basic_strategy_pairs" && r.split.decline_refund) {
    rows.push(["surrender20", t("rules.action.surrender20", { pct: ratioPercent(r.split.decline_refund) })]);
  }
  if (r.surrender.allowed) {
    rows.push(["surrender", t("rules.action.surrender", { pct: ratioPercent(r.surrender.refund), cards: upCardList(r.surrender.up_values) })]);
  }
  if (r.fallbacks.insufficient_coins === "hit_if_11_or_less_else_stand") {
    rows.push(["fallback", t("rules.action.fallback_hit11")]);
  } else {
    rows.push(["fallback", t("rules.action.fallback_chart")]);
  }
  return h("table.rules-table", {},
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("rules.action")), h("th", { scope: "col" }, t("rules.description")))),
    h("tbody", {}, rows.map(([word, text]) =>
      h("tr", {}, h("th", { scope: "row" }, word === "fallback" ? t("rules.action.fallback") : actionName(r, word)), h("td", {}, text)),
    )),
  );
}

function insurance(r) {
  if (!r.insurance.offered) return [t("rules.insurance.none")];
  const lines = [t("rules.insurance.offer", { cost: ratioPercent(r.insurance.cost), pays: r.insurance.pays, seconds: r.timers.insurance_seconds })];
  lines.push(
    r.insurance.blackjack_offer === "even_money"
      ? t("rules.insurance.even_money", { pays: r.payouts.win })
      : t("rules.insurance.with_blackjack"),
  );
  lines.push(t("rules.insurance.not_autoplayed"));
  return lines;
}

function payouts(r) {
  const lines = [
    t("rules.payouts.blackjack", { pays: r.payouts.blackjack }),
    t("rules.payouts.win", { pays: r.payouts.win }),
    t("rules.payouts.push"),
  ];
  if (r.payouts.blackjack_paid_at_once_up_values?.length) {
    lines.push(t("rules.payouts.blackjack_at_once", { cards: upCardList(r.payouts.blackjack_paid_at_once_up_values) }));
  }
  lines.push(t("rules.payouts.rounding"));
  if (r.title.documented_rtp) lines.push(t("rules.payouts.rtp", { pct: percent(r.title.documented_rtp, 2) }));
  return lines;
}

function timers(r) {
  return [
    t("rules.timers.betting", { seconds: r.timers.betting_seconds }),
    r.insurance.offered ? t("rules.timers.insurance", { seconds: r.timers.insurance_seconds }) : null,
    t("rules.timers.decision", { seconds: r.timers.decision_seconds }),
  ];
}

function sideBets(r) {
  if (!r.side_bets?.length) return [h("p", {}, t("rules.side_bets.none"))];
  const intro = [];
  if (r.side_bet_offer?.mode === "player_chooses") intro.push(h("p", {}, t("rules.side_bets.choose", { n: r.side_bet_offer.choose_count })));
  return [
    ...intro,
    ...r.side_bets.map((bet) =>
      h("div.side-bet-rules", { dataset: { sideBet: bet.key } },
        h("h3", {}, sideBetName(r, bet.key)),
        h("p", {}, t(`side_desc.${bet.kind}`)),
        bet.target === "dealer" ? h("p", {}, t("rules.side_bets.dealer_target")) : null,
        h("p.muted", {}, t("rules.side_bets.limits", { min: money(bet.min_amount), max: money(bet.max_amount) })),
        bet.max_round ? h("p.muted", {}, t("rules.side_bets.max_round", { n: bet.max_round })) : null,
        h("p.muted", {}, t("rules.side_bets.highest_only")),
        bet.pays && Object.keys(bet.pays).length ? payTable(r, bet) : null,
        bet.wheel ? wheel(bet) : null,
      ),
    ),
  ];
}

function wheel(bet) {
  const w = bet.wheel;
  const total = (wedges) => wedges.reduce((sum, wedge) => sum + wedge.weight, 0);
  const rows = (wedges) => {
    const sum = total(wedges);
    return wedges.map((wedge) =>
      h("tr", {},
        h("td", {}, wedge.power_up ? t("rules.wheel.power_up") : wedge.label),
        h("td.num", {}, wedge.multiplier !== null && wedge.multiplier !== undefined ? t("rules.wheel.times", { n: wedge.multiplier }) : "–"),
        h("td.num", {}, percent(wedge.weight / sum, 1)),
      ),
    );
  };
  const head = h("thead", {}, h("tr", {},
    h("th", { scope: "col" }, t("rules.wheel.wedge")), h("th", { scope: "col" }, t("rules.pays")), h("th", { scope: "col" }, t("rules.wheel.chance"))));
  return h("div.wheel-rules", {},
    w.example ? h("p.notice", {}, t("rules.wheel.example")) : null,
    h("div.wheel-rest", {}, wheelFigure(bet, [])),
    h("h4", {}, t("rules.wheel.inner")),
    h("table.pay-table", {}, head, h("tbody", {}, rows(w.inner))),
    h("h4", {}, t("rules.wheel.outer")),
    h("table.pay-table", {}, head.cloneNode(true), h("tbody", {}, rows(w.outer))),
    (w.jackpots || []).length
      ? bullets(w.jackpots.map((jackpot) => t("rules.wheel.jackpot", { label: jackpot.label, amount: money(jackpot.amount) })), t("rules.wheel.jackpot_chance"))
      : null,
  );
}

function fairness(r) {
  const lines = [];
  if (r.shoe.reshuffle_every_round) lines.push(t("rules.fairness.every_round"));
  else lines.push(t("rules.fairness.commitment"));
  lines.push(t("rules.fairness.errors"));
  return lines;
}
