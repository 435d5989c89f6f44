// Two panels of the table: this player's last rounds here (each opening its play record) and
// the table's statistics (the dealer's results over the last rounds, the cards shown in this
// shoe by value, the players and your stake on each spot). Both come from the server; the
// statistics add the cards of the round in play that are face up on the felt.
import { api, listOf } from "../../api.js";
import { h, money, percent, signedMoney } from "../../format.js";
import { t } from "../../i18n.js";
import { changed, myPositions, pub, spotNumbers, v } from "./state.js";

const HISTORY_ROUNDS = 20;
const VALUES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
const DEALER_RESULTS = ["17", "18", "19", "20", "21", "blackjack", "bust"];
const LIVE_PHASES = new Set(["dealing", "insurance", "decisions", "dealer"]);

export async function loadHistory() {
  const tableId = v?.tableId;
  try {
    const rows = listOf(await api.tableHistory(tableId, HISTORY_ROUNDS));
    if (!v || v.tableId !== tableId) return;
    v.tableHistory = rows;
    changed();
  } catch {
    // The panel says it has nothing yet; Repeat waits for a bet placed here.
  }
}

export async function loadStats() {
  const tableId = v?.tableId;
  try {
    const stats = await api.tableStats(tableId);
    if (!v || v.tableId !== tableId) return;
    v.stats = stats;
    changed();
  } catch (error) {
    if (v) {
      v.stats = { error };
      changed();
    }
  }
}

export function historyPanel() {
  const rows = v.tableHistory || [];
  return h("section.panel.history-panel#history", { "aria-labelledby": "history-heading" },
    h("h2#history-heading", {}, t("history.heading", { n: HISTORY_ROUNDS })),
    rows.length
      ? h("table.history-table", {},
          h("thead", {}, h("tr", {}, [t("records.round"), t("records.staked"), t("result.outcome"), t("records.net")].map((label) => h("th", { scope: "col" }, label)))),
          h("tbody", {}, rows.map((row) =>
            h("tr", {},
              h("td", {}, h("a.record-link", { href: `#/records/${encodeURIComponent(row.round_id)}` }, `#${row.round_no}`)),
              h("td.num", {}, money(row.staked)),
              h("td", {}, (row.outcomes || []).map((outcome) => t(`outcome.${outcome}`)).join(" · ") || t(`record_status.${row.status}`)),
              h(`td.num${row.net > 0 ? ".good" : row.net < 0 ? ".bad" : ""}`, {}, signedMoney(row.net)),
            ),
          )),
        )
      : h("p.muted", {}, t("history.empty")),
  );
}

/** The cards face up on the felt in the round being played (the server counts finished ones). */
function liveCards() {
  const p = pub();
  if (!LIVE_PHASES.has(p.phase)) return [];
  const cards = [...(p.dealer?.cards || [])];
  for (const shared of Object.values(p.spots || {})) cards.push(...shared.cards, ...(shared.step_cards || []));
  return cards;
}

function valueOf(code) {
  const rank = String(code).slice(0, -1);
  return ["T", "J", "Q", "K", "10"].includes(rank) ? "10" : rank;
}

export function statsPanel() {
  if (!v.stats) {
    loadStats();
    v.stats = { loading: true };
  }
  const stats = v.stats;
  const region = h("section.panel.stats-panel#stats", { "aria-labelledby": "stats-heading" }, h("h2#stats-heading", {}, t("stats.heading")));
  const mine = myPositions();
  // The table's bets on each spot, as the server publishes them (serve always; a cluster
  // gateway from the bet close on, summed by its coordinator); until then only your stake shows.
  const table = pub().spot_bets ?? null;
  const partial = Boolean(table && pub().spot_bets_partial);
  region.append(
    h("dl.stats-facts", {},
      h("div", {}, h("dt", {}, t("stats.players")), h("dd#stats-players", {}, String(v.state?.seated ?? 0))),
    ),
    h("table.stats-table#stats-spots", { dataset: { tableWide: table ? "yes" : "no" } },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("stats.spot")),
        table ? h("th", { scope: "col" }, t("stats.spot_positions")) : null,
        table ? h("th", { scope: "col" }, t("stats.spot_stake")) : null,
        h("th", { scope: "col" }, t("stats.spot_yours")),
      )),
      h("tbody", {}, spotNumbers().map((spot) => {
        const position = mine.find((item) => item.spot === spot);
        const here = table?.[String(spot)];
        return h("tr", { dataset: { spot } },
          h("th", { scope: "row" }, String(spot)),
          table ? h("td.num", {}, String(here?.positions ?? 0)) : null,
          table ? h("td.num", {}, money((here?.main ?? 0) + (here?.side ?? 0))) : null,
          h("td.num", {}, money(position?.staked ?? 0)),
        );
      })),
    ),
    table
      ? (partial ? h("p.muted#stats-spots-note", {}, t("stats.spots_partial")) : null)
      : h("p.muted#stats-spots-note", {}, t("stats.spots_at_close")),
  );
  if (stats.loading) return region;
  if (stats.error) {
    region.append(h("p.muted", {}, t("stats.unavailable")));
    return region;
  }
  const rounds = stats.rounds || 0;
  region.append(
    h("h3", {}, t("stats.dealer_heading", { n: rounds })),
    rounds
      ? h("table.stats-table#stats-dealer", {},
          h("tbody", {}, DEALER_RESULTS.map((key) => {
            const count = stats.dealer_results?.[key] || 0;
            return h("tr", { dataset: { result: key } },
              h("th", { scope: "row" }, key === "bust" ? t("table.bust_short") : key === "blackjack" ? t("stats.blackjack") : key),
              h("td.num", {}, String(count)),
              h("td.num", {}, percent(count / rounds)),
            );
          })),
        )
      : h("p.muted", {}, t("stats.no_rounds")),
    rounds ? h("p#stats-bust-rate", {}, t("stats.bust_rate", { rate: percent(stats.bust_rate ?? 0) })) : null,
  );
  const counts = { ...(stats.cards_this_shoe || {}) };
  for (const code of liveCards()) counts[valueOf(code)] = (counts[valueOf(code)] || 0) + 1;
  region.append(
    h("h3", {}, t("stats.cards_heading", { n: stats.shoe_number ?? v.state?.shoe_number ?? "–" })),
    h("table.stats-table.stats-cards#stats-cards", {},
      h("thead", {}, h("tr", {}, VALUES.map((value) => h("th", { scope: "col" }, value)))),
      h("tbody", {}, h("tr", {}, VALUES.map((value) => h("td.num", {}, String(counts[value] || 0))))),
    ),
  );
  return region;
}
