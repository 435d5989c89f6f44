// One round of the play record, in order: cards as they came, decisions (autoplay marked),
// stakes, payouts, balance before and after, rules version, the shoe commitment and, once the
// shoe is finished, its reveal with a one-click check computed here in the browser.
import { api, failureOf } from "../api.js";
import { MINOR_DIGITS, cardElement, cardText, dateTime, h, locale, money, signedMoney } from "../format.js";
import { setVocabulary, t } from "../i18n.js";
import { commitmentOf } from "../sha256.js";
import { errorText, session } from "../session.js";
import { actionName, patternName, sideBetName, titleName } from "./rule_text.js";

let root = null;
let roundId = null;
let record = null;
let rules = null;
let reveal = null; // {salt, cards} from the record or from GET /shoes
let verdict = null; // null | "checking" | {ok, computed}
let failure = null;

export async function mount(element, id) {
  root = element;
  roundId = decodeURIComponent(id);
  record = null;
  rules = null;
  reveal = null;
  verdict = null;
  failure = null;
  render();
  if (!session.player) return;
  failure = await failureOf(async () => {
    record = await api.record(roundId);
    const titleKey = record.title || record.title_key;
    if (titleKey) rules = await api.title(titleKey).catch(() => null);
    reveal = record.shoe?.reveal || null;
    if (!reveal && record.table_id && record.shoe?.number !== undefined) {
      const shoe = await api.shoe(record.table_id, record.shoe.number).catch(() => null);
      if (shoe?.finished && shoe.reveal) reveal = shoe.reveal;
    }
  });
  render();
}

export function unmount() {
  root = null;
}

export function render() {
  if (!root) return;
  const back = h("a.back-link.inline", { href: "#/records" }, "‹ ", t("records.back"));
  if (!session.player) {
    root.replaceChildren(back, h("p.panel", {}, t("records.sign_up_first")));
    return;
  }
  if (failure) {
    root.replaceChildren(back, h("p.error.panel", { role: "alert" }, errorText(failure)));
    return;
  }
  if (!record) {
    root.replaceChildren(back, h("p.loading", {}, t("app.loading")));
    return;
  }
  if (rules) setVocabulary(rules.title.vocabulary);
  root.replaceChildren(
    back,
    h("h1.page-title", {}, t("detail.title", { title: titleName(record.title, record.title), n: record.round_no ?? "" })),
    summary(),
    h("div.detail-grid", {},
      section("cards", t("detail.cards"), cardsTimeline()),
      section("decisions", t("detail.decisions"), decisions()),
      section("stakes", t("detail.stakes"), stakesAndPayouts()),
      section("shoe", t("detail.shoe"), shoe()),
      section("ledger", t("detail.ledger"), ledger()),
    ),
  );
}

function section(id, heading, content) {
  return h("section.panel.detail-section", { id: `detail-${id}` }, h("h2", {}, heading), content);
}

function summary() {
  const r = record;
  const staked = r.staked ?? sum(stakeRows(), "staked");
  const paid = r.paid ?? sum(stakeRows(), "paid");
  const net = r.net ?? paid - staked;
  return h("dl.detail-summary.panel", {},
    item(t("detail.status"), t(`record_status.${r.status || "settled"}`)),
    item(t("detail.when"), dateTime(r.settled_at ?? r.started_at)),
    item(t("detail.table"), r.table_name || (r.title ? titleName(r.title, r.title) : "–")),
    item(t("detail.rules_version"), h("span#rules-version", {}, r.rules_version ?? "–")),
    item(t("detail.balance_before"), h("span#balance-before", {}, money(r.balance_before))),
    item(t("detail.balance_after"), h("span#balance-after", {}, money(r.balance_after))),
    item(t("detail.staked"), money(staked)),
    item(t("detail.paid"), money(paid)),
    item(t("detail.net"), h(`span${net > 0 ? ".good" : net < 0 ? ".bad" : ""}`, {}, signedMoney(net))),
  );
}

function item(label, value) {
  return h("div", {}, h("dt", {}, label), h("dd", {}, value));
}

function sum(items, field) {
  return items.reduce((total, entry) => total + (Number(entry[field]) || 0), 0);
}

// ---- cards ------------------------------------------------------------------------------------
function cardsTimeline() {
  const cards = record.cards || [];
  if (!cards.length) return h("p.muted", {}, t("detail.none"));
  return h("ol.card-timeline", {},
    cards.map((entry, index) => {
      const code = typeof entry === "string" ? entry : entry.card;
      const where = typeof entry === "string" ? "" : cardPlace(entry);
      return h("li", {},
        h("span.timeline-n", {}, String(index + 1)),
        cardElement(code ?? null, { small: true }),
        h("span.timeline-text", {}, where, code ? h("span.sr-only", {}, ` ${cardText(code)}`) : null),
        entry.takers !== undefined ? h("span.tag", {}, t("table.took_it", { count: entry.takers })) : null,
        entry.took !== undefined ? h(`span.tag${entry.took ? ".tag-good" : ""}`, {}, entry.took ? t("detail.you_took") : t("detail.you_passed")) : null,
      );
    }),
  );
}

function cardPlace(entry) {
  const kind = entry.kind || entry.to || entry.type || (entry.step ? "step" : entry.spot ? "spot" : "dealer");
  return t(`card_kind.${kind}`, { spot: entry.spot ?? "", n: entry.step ?? entry.n ?? "" });
}

// ---- decisions ------------------------------------------------------------------------------
function decisions() {
  const list = record.decisions || [];
  if (!list.length) {
    const insured = (record.positions || []).some((position) => position.insurance);
    return h("p.muted", {}, insured ? t("detail.only_insurance") : t("detail.no_decisions"));
  }
  const split = list.some((d) => Number(d.hand) > 1);
  return h("ol.decision-list", {},
    list.map((d) => {
      const by = d.by || d.source || "player";
      return h("li", { dataset: { by } },
        h("span", {}, [
          d.step !== undefined ? t("detail.step_n", { n: d.step }) : null,
          d.spot !== undefined && (rules?.table?.spots ?? 1) > 1 ? t("table.spot", { n: d.spot }) : null,
          split && d.hand !== undefined ? t("table.hand_n", { n: d.hand }) : null,
        ].filter(Boolean).join(" · ")),
        h("strong", {}, d.action ? actionName(rules, d.action) : "–"),
        h(`span.tag${by === "player" ? "" : ".tag-auto"}`, {}, t(`by.${by}`)),
      );
    }),
  );
}


// ---- stakes and payouts ---------------------------------------------------------------------
/** A fraction of a minor unit ("1/2") lost to rounding down, as an amount ("0.005"). */
function roundedOff(text) {
  const [n, d] = String(text ?? "0").split("/").map(Number);
  const units = d ? n / d : n;
  if (!units) return null;
  return (units / 10 ** MINOR_DIGITS).toFixed(MINOR_DIGITS + 3).replace(/0+$/, "");
}

function stakeRows() {
  const rows = [];
  const spots = (rules?.table?.spots ?? 1) > 1;
  for (const position of record.positions || []) {
    const where = spots ? `${t("table.spot", { n: position.spot })} · ` : "";
    (position.hands || []).forEach((hand, index) => {
      const lost = roundedOff(hand.rounded_off);
      rows.push({
        what: where + (position.hands.length > 1 ? t("table.hand_n", { n: index + 1 }) : t("wager.main")),
        cards: hand.cards,
        outcome: [hand.outcome ? t(`outcome.${hand.outcome}`) : t(`status.${hand.status}`), hand.autoplayed ? t("by.autoplay") : null, lost ? t("detail.rounded", { amount: lost }) : null]
          .filter(Boolean).join(" · "),
        staked: hand.bet,
        paid: hand.payout ?? 0,
      });
    });
    // Even money shows as the hand's own outcome; only real insurance gets a row of its own.
    if (position.insurance && position.insurance.kind !== "even_money") {
      const insurance = position.insurance;
      rows.push({ what: where + t(`wager.${insurance.kind}`), outcome: insurance.outcome ? t(`outcome.${insurance.outcome}`) : "–", staked: insurance.stake, paid: insurance.payout ?? 0 });
    }
    for (const [key, side] of Object.entries(position.side_bets || {})) {
      rows.push({
        what: where + sideBetName(rules, key),
        // A wheel bet names the wedges it landed on (inner wheel first, then the Power Up wheel).
        outcome: side.wheel?.length
          ? t("wheel.landed", { wedges: side.wheel.join(" · ") })
          : side.outcome === "win" ? patternName(rules, key, side.pattern) || t("outcome.win") : side.outcome ? t("outcome.lose") : "–",
        staked: side.stake,
        paid: side.payout ?? 0,
      });
    }
  }
  return rows;
}

function stakesAndPayouts() {
  const rows = stakeRows();
  if (!rows.length) return h("p.muted", {}, t("detail.none"));
  return h("table.result-table#stake-table", {},
    h("thead", {}, h("tr", {},
      [t("detail.what"), t("detail.outcome"), t("detail.staked"), t("detail.paid")].map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, rows.map((row) =>
      h("tr", {},
        h("td", {}, row.what, row.cards ? h("span.mini-cards", {}, " ", row.cards.map(cardText).join(" ")) : null),
        h("td", {}, row.outcome),
        h("td.num", {}, money(row.staked)),
        h("td.num", {}, money(row.paid)),
      ),
    )),
  );
}

/** A ledger kind ("main", "double:2", "side:pair", "settle") in words. */
function movementName(tx) {
  const [base, detail] = String(tx.kind || tx.category || "").split(":");
  if (base === "side" && detail) return sideBetName(rules, detail);
  const key = `wager.${base}`;
  const name = t(key);
  if (name !== key) return name;
  const category = t(`wager.${tx.category}`);
  return category === `wager.${tx.category}` ? String(tx.kind) : category;
}

// ---- shoe -----------------------------------------------------------------------------------
function shoe() {
  const s = record.shoe || {};
  const parts = [
    h("dl.shoe-facts", {},
      item(t("detail.shoe_number"), s.number ?? "–"),
      item(t("detail.round_in_shoe"), s.round_in_shoe ?? "–"),
      item(t("detail.commitment"), h("code.hash#shoe-commitment", {}, s.commitment || "–")),
    ),
    h("p.muted", {}, t("detail.commitment_explain")),
  ];
  if (!reveal) {
    parts.push(h("p.notice#shoe-pending", {}, t("detail.reveal_pending")));
    return h("div", {}, parts);
  }
  parts.push(
    h("dl.shoe-facts", {},
      item(t("detail.salt"), h("code.hash", {}, reveal.salt)),
      item(t("detail.cards_in_shoe"), String(reveal.cards.length)),
    ),
    h("details.shoe-cards", {},
      h("summary", {}, t("detail.show_order")),
      h("p.mono", {}, reveal.cards.join(" ")),
    ),
    h("button.btn.btn-gold#verify-shoe", { type: "button", disabled: verdict === "checking", onclick: verify }, t("detail.verify")),
  );
  if (verdict && verdict !== "checking") {
    parts.push(
      h(`p.verdict${verdict.ok ? ".good" : ".bad"}#verify-result`, { role: "status" },
        verdict.ok ? t("detail.verified") : t("detail.not_verified"),
        h("br"),
        h("code.hash", {}, verdict.computed),
      ),
    );
  }
  return h("div", {}, parts);
}

async function verify() {
  verdict = "checking";
  render();
  const computed = await commitmentOf(reveal.salt, reveal.cards);
  const expected = (reveal.commitment || record.shoe?.commitment || "").toLowerCase();
  verdict = { ok: computed === expected, computed };
  render();
}

// ---- ledger ---------------------------------------------------------------------------------
function ledger() {
  const list = record.transactions || [];
  if (!list.length) return h("p.muted", {}, t("detail.none"));
  return h("table.result-table#ledger-table", {},
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("detail.what")),
      h("th", { scope: "col" }, t("detail.when")),
      h("th", { scope: "col" }, t("detail.amount")),
    )),
    h("tbody", {}, list.map((tx) =>
      h("tr", {},
        h("td", {}, movementName(tx)),
        h("td", {}, timeOnly(tx.created_at)),
        h(`td.num${tx.wallet_amount > 0 ? ".good" : ""}`, {}, signedMoney(tx.wallet_amount ?? tx.amount)),
      ),
    )),
  );
}

function timeOnly(value) {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "–" : date.toLocaleTimeString(locale());
}
