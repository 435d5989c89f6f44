// The felt: the table header (facts, timer), the dealer, each spot's shared and step cards, your
// hands and the bet circles.
import { cardElement, h, money, shortMoney } from "../../format.js";
import { t } from "../../i18n.js";
import { serverNow } from "../../socket.js";
import { patternName, sideBetName, sideBetRules, sideBetShortName, titleName } from "../rule_text.js";
import { addChip } from "./actions.js";
import { play } from "./sound.js";
import { privateControls, tableName } from "./private_controls.js";
import {
  bettingOpen,
  betsFromPositions,
  occupiedSpots,
  offeredSideBets,
  positionOn,
  pub,
  roundsLeft,
  sideAvailable,
  spotNumbers,
  v,
} from "./state.js";

/** A card element that animates in the first time this slot shows a card this round (not the
 * cards a join or a resync finds on the table: v.standing, cleared once they are drawn). */
function card(slot, code, options = {}) {
  const id = `${slot}:${code ?? "back"}`;
  const isNew = !v.seen.has(id) && !v.standing;
  v.seen.add(id);
  if (isNew && code !== null) play("deal");
  return cardElement(code, { ...options, fresh: isNew });
}

export function header() {
  const p = pub();
  const phase = p.paused ? "paused" : p.phase;
  return h("header.table-header", {},
    h("div.table-title", {},
      h("a.back-link", { href: "#/lobby", "aria-label": t("nav.lobby") }, "‹"),
      h("h1#table-heading", {}, tableName(titleName(v.rules.title.key, v.rules.title.name))),
      h("a.rules-link", { href: `#/rules/${encodeURIComponent(v.rules.title.key)}` }, t("lobby.rules")),
    ),
    privateControls(),
    h("dl.table-facts", {},
      fact("round", t("table.round"), v.state.round_no ?? "–"),
      fact("shoe_round", t("table.shoe_round"), p.round_in_shoe ?? "–"),
      v.rules.table.shared ? fact("seated", t("table.seated"), v.state.seated ?? p.positions ?? 0) : null,
      fact("phase", t("table.phase"), h("span#phase-label", { dataset: { phase } }, t(`phase.${phase}`))),
    ),
    h("div.timer#timer", { role: "timer", "aria-label": t("table.timer") },
      h("span.timer-ring", { "aria-hidden": "true" }),
      h("span.timer-text#timer-text", {}, ""),
      h("span.timer-kind#timer-kind", {}, ""),
    ),
  );
}

function fact(name, label, value) {
  return h("div.fact", { dataset: { fact: name } }, h("dt", {}, label), h("dd", {}, value));
}

/** The timer ring, redrawn five times a second outside the version-driven draw. */
export function drawTimer() {
  if (!v?.state) return;
  const box = document.getElementById("timer");
  if (!box) return;
  const timer = v.state.timer;
  // A window held (the table paused, or the bet close waiting for the ledger) has no deadline.
  if (!timer || pub().paused || timer.deadline_ms == null) {
    box.hidden = true;
    return;
  }
  const seconds = v.rules?.timers?.[`${timer.kind}_seconds`] || 10;
  const left = Math.max(0, timer.deadline_ms - serverNow());
  box.hidden = false;
  box.style.setProperty("--left", String(Math.min(1, left / (seconds * 1000))));
  box.classList.toggle("timer-urgent", left < 3000);
  // The last seconds tick once each (only while this player has something to answer).
  const second = Math.ceil(left / 1000);
  if (left > 0 && left < 3000 && second !== v.tickedSecond && timerConcernsMe(timer.kind)) play("tick");
  v.tickedSecond = second;
  document.getElementById("timer-text").textContent = String(Math.ceil(left / 1000));
  document.getElementById("timer-kind").textContent = t(`timer_kind.${timer.kind}`);
  // The insurance banner counts down on its own, beside the offers it is about.
  const countdown = document.getElementById("insurance-countdown");
  if (countdown) countdown.textContent = timer.kind === "insurance" ? t("insurance.seconds_left", { seconds: Math.ceil(left / 1000) }) : "";
}

function timerConcernsMe(kind) {
  if (kind === "betting") return bettingOpen();
  if (kind === "insurance") return myPositionsNow().some((position) => position.insurance_offer);
  return kind === "decision" && Boolean(positionOn(pub().current_spot)?.legal_actions?.length);
}

function myPositionsNow() {
  return v.you?.player?.positions || [];
}

export function feltText() {
  const r = v.rules;
  const parts = [t("felt.blackjack_pays", { pays: r.payouts.blackjack })];
  parts.push(r.dealer.hits_soft_17 ? t("felt.hits_soft_17") : t("felt.stands_17"));
  if (r.insurance.offered) parts.push(t("felt.insurance_pays", { pays: r.insurance.pays }));
  return parts.flatMap((part, i) => (i ? [" · ", h("span.nowrap", {}, part)] : [h("span.nowrap", {}, part)]));
}

export function dealerZone() {
  const dealer = pub().dealer || { cards: [] };
  const cards = dealer.cards.map((code, i) => card(`d${i}`, code));
  if (dealer.hole_hidden) cards.splice(1, 0, card("dhole", null));
  return h("div.dealer-zone", {},
    h("div.zone-label", {}, t("table.dealer"), dealer.total ? h("span.total#dealer-total", {}, String(dealer.total)) : null),
    h("div.card-row.dealer-cards#dealer-cards", { "aria-label": t("table.dealer_cards") }, cards),
  );
}

export function spotZones() {
  return h("div.spots", { dataset: { count: spotNumbers().length } }, spotNumbers().map(spotZone));
}

function spotZone(spot) {
  const p = pub();
  const shared = p.spots?.[String(spot)] || { cards: [], step_cards: [], step_takers: [] };
  const position = positionOn(spot);
  const current = p.phase === "decisions" && p.current_spot === spot;
  // At a table of one's own the spot's cards are the player's hand: drawn once, as the hand.
  const ownHand = position && !v.rules.table.shared;
  return h(`div.spot${current ? ".spot-current" : ""}`, { dataset: { spot } },
    v.rules.table.spots > 1 ? h("div.spot-label", {}, t("table.spot", { n: spot })) : null,
    ownHand ? null : h("div.shared-cards", {},
      h("div.card-row", { "aria-label": t("table.shared_cards") }, shared.cards.map((code, i) => card(`s${spot}c${i}`, code))),
      shared.step_cards.length ? stepRail(spot, shared) : null,
    ),
    position ? myHands(position) : null,
    betArea(spot, position),
  );
}

function stepRail(spot, shared) {
  const latest = v.step && v.step.spot === spot ? v.step.step : null;
  return h("ol.step-rail", { "aria-label": t("table.step_cards") },
    shared.step_cards.map((code, i) =>
      h(`li.step-card${latest === i + 1 ? ".step-latest" : ""}`, {},
        card(`s${spot}t${i}`, code, { small: true }),
        // How many took a step card only tells something where others play the same spot.
        v.rules.table.shared ? h("span.step-takers", {}, t("table.took_it", { count: shared.step_takers?.[i] ?? 0 })) : null,
      ),
    ),
  );
}

function myHands(position) {
  // Three or four hands (resplits) are drawn with small cards, side by side where they fit.
  const small = position.hands.length > 2;
  return h("div.my-hands", { "aria-label": t("table.your_hands"), dataset: { count: position.hands.length } },
    position.hands.map((hand, index) => {
      const active = position.current_hand === index && pub().phase === "decisions";
      const tookLatest = v.step && v.step.spot === position.spot && hand.cards.includes(v.step.card) && hand.cards[hand.cards.length - 1] === v.step.card;
      return h(`div.my-hand${active ? ".hand-active" : ""}${tookLatest ? ".hand-took" : ""}`, { dataset: { hand: index, status: hand.status } },
        h("div.hand-head", {},
          h("span.hand-label", {}, position.hands.length > 1 ? t("table.hand_n", { n: index + 1 }) : t("table.your_hand")),
          hand.cards.length ? h("span.total.hand-total", {}, String(hand.total)) : null,
          hand.autoplayed ? h("span.tag.tag-auto", {}, t("table.autoplayed")) : null,
        ),
        h("div.card-row", {}, hand.cards.map((code, i) => card(`h${position.spot}-${index}c${i}`, code, { small }))),
        h("div.hand-foot", {},
          h("span.hand-bet", {}, t("table.bet_amount", { amount: money(hand.bet) })),
          hand.outcome
            ? h(`span.outcome.outcome-${hand.outcome}`, {}, t(`outcome.${hand.outcome}`), hand.payout !== null ? ` · ${money(hand.payout)}` : "")
            : hand.cards.length ? h("span.status", {}, t(`status.${hand.status}`)) : null,
        ),
      );
    }),
  );
}

function betArea(spot, position) {
  const placed = position ? betsFromPositions([position])[String(spot)] : v.placed?.bets?.[String(spot)];
  const showing = placed || v.draft[spot] || {};
  const open = bettingOpen();
  const maxSpots = v.rules.table.max_spots_per_player;
  const occupied = occupiedSpots();
  const spotBlocked = open && !occupied.includes(spot) && occupied.length >= maxSpots;
  const sides = offeredSideBets().filter((key) => sideBetRules(v.rules, key));
  const results = sides.some((key) => position?.side_bets?.[key]?.outcome);
  return h(`div.bet-area${results ? ".has-results" : ""}`, {},
    betCircle({
      spot,
      key: "main",
      label: t("bet.main"),
      amount: showing.main || 0,
      disabled: !open || spotBlocked,
      main: true,
    }),
    sides.length
      ? h("div.side-circles", {},
          sides.map((key) => {
            const left = roundsLeft(key);
            const available = sideAvailable(key);
            return betCircle({
              spot,
              key,
              label: sideBetShortName(v.rules, key),
              fullLabel: sideBetName(v.rules, key),
              amount: showing[key] || 0,
              disabled: !open || !available || spotBlocked,
              badge: left === null ? null : available ? t("bet.rounds_left", { n: left }) : t("bet.closed"),
              result: position?.side_bets?.[key],
            });
          }),
        )
      : null,
  );
}

function betCircle({ spot, key, label, fullLabel, amount, disabled, main = false, badge = null, result = null }) {
  // A side option's result: its pattern and payout when it wins, the title's loss word otherwise.
  const won = result?.outcome === "win";
  const resultText = result?.outcome
    ? won
      ? [h("span.result-pattern", {}, result.wheel?.length ? result.wheel.join(" · ") : patternName(v.rules, key, result.pattern)),
          h("span.result-paid", { title: t("bet.net_win_title") }, t("bet.net_win", { amount: shortMoney(result.payout - result.stake) }))]
      : t("bet.side_lost")
    : null;
  return h(`button.bet-circle${main ? ".bet-main" : ".bet-side"}${amount ? ".has-chips" : ""}${won ? ".bet-won" : ""}`, {
    type: "button",
    id: `bet-${spot}-${key}`,
    disabled,
    dataset: { spot, bet: key },
    "aria-label": t("bet.circle_label", { name: fullLabel || label, spot, amount: money(amount) }),
    onclick: () => addChip(spot, key),
  },
    h("span.bet-name", {}, label),
    amount ? h("span.chip-stack", { "aria-hidden": "true" }, h("span.chip.chip-on-spot", { dataset: { digits: shortMoney(amount).length } }, shortMoney(amount))) : null,
    badge ? h("span.bet-badge", {}, badge) : null,
    resultText ? h(`span.bet-result${won ? ".bet-result-won" : ""}`, {}, resultText) : null,
  );
}
