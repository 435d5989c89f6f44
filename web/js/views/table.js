// The table: dealer, shared spots, the step card and who took it, your hands, the decision timer,
// chips and bet spots (side bets with rounds left), legal actions, insurance, results.
// Everything is driven by the title's rule set and the server's state/you messages: no branch
// on a title's name.
import { api } from "../api.js";
import { cardElement, cardText, h, money, shortMoney, signedMoney } from "../format.js";
import { currentLanguage, setVocabulary, t } from "../i18n.js";
import { errorText, session, toast } from "../session.js";
import { newBetId, on, send, serverNow } from "../socket.js";
import {
  actionName,
  patternName,
  sideBetGroups,
  sideBetName,
  sideBetRules,
  sideBetShortName,
  titleName,
} from "./rule_text.js";

const ACTIONS = ["hit", "stand", "double", "split", "surrender", "surrender20"];
const CHIP_STEPS = [1, 5, 25, 100, 500, 1000, 5000, 25000];
const MAX_CHIPS = 6;
const MAX_LOG = 30;

let root = null;
let v = null; // the view's state
const unsubscribers = [];

function fresh(tableId) {
  return {
    tableId,
    rules: null,
    state: null,
    you: null,
    chip: null,
    draft: {}, // {spot: {main: amount, <side key>: amount}}
    history: [], // for undo: [{spot, key, amount}]
    lastBets: null,
    placed: null, // {round_id, bets}
    placing: false,
    decided: null, // {round_id, spot, step, action, you: the view it was decided on}
    insuranceDone: new Set(), // "round:spot"
    step: null, // last step message
    seen: new Set(),
    roundId: null,
    log: [],
    settled: null,
    lastResult: null, // {roundId, positions, balance} of the last settled round
    timerKind: null,
    choosing: false,
    error: null,
    frame: 0,
    tick: 0,
    shown: null, // what the last draw showed (see draw)
  };
}

export function mount(element, tableId) {
  root = element;
  v = fresh(decodeURIComponent(tableId));
  if (!session.player) {
    root.replaceChildren(
      h("p.panel", {}, t("table.sign_up_first"), " ", h("a", { href: "#/lobby" }, t("nav.lobby"))),
    );
    return;
  }
  unsubscribers.push(
    on("state", (m) => m.table_id === v.tableId && onState(m)),
    on("you", (m) => m.table_id === v.tableId && onYou(m)),
    on("step", (m) => m.table_id === v.tableId && onStep(m)),
    on("settled", (m) => m.table_id === v.tableId && onSettled(m)),
    on("notice", (m) => m.table_id === v.tableId && onNotice(m)),
    on("reconnected", () => join()),
    session.onChange(() => schedule()),
  );
  v.tick = setInterval(drawTimer, 200);
  // Redraws replace v.body only: the live region stays in place so screen readers announce it.
  v.body = h("div.table-view", {}, h("p.loading", {}, t("app.loading")));
  v.live = h("div.sr-only#table-live", { "aria-live": "polite", "aria-atomic": "true" });
  root.replaceChildren(v.body, v.live);
  join();
}

export function unmount() {
  if (v?.tick) {
    clearInterval(v.tick);
    send("leave", { table_id: v.tableId }).catch(() => {});
  }
  while (unsubscribers.length) unsubscribers.pop()();
  root = null;
  v = null;
}

export function render() {
  schedule();
}

async function join() {
  try {
    await send("join", { table_id: v.tableId });
    await send("resync", { table_id: v.tableId }).catch(() => {});
  } catch (error) {
    if (!v) return;
    v.error = error;
    schedule();
  }
}

// ---- incoming messages --------------------------------------------------------------------
async function onState(message) {
  const first = !v.state;
  if (message.round_id !== v.roundId) newRound(message);
  v.state = message;
  if (first || !v.rules) {
    let rules = null;
    try {
      rules = await api.title(message.public.title);
    } catch (error) {
      if (v) v.error = error;
    }
    if (!v) return;
    v.rules ??= rules;
    v.chip ??= chipValues()[0] ?? null;
  }
  const kind = message.timer?.kind ?? null;
  if (kind !== v.timerKind) {
    v.timerKind = kind;
    if (message.timer) {
      const seconds = Math.max(0, Math.round((message.timer.deadline_ms - serverNow()) / 1000));
      announce(t(`timer.${message.timer.kind}`, { seconds }));
    }
  }
  schedule();
}

function newRound(message) {
  if (v.roundId !== null && v.placed?.bets) v.lastBets = v.placed.bets;
  v.roundId = message.round_id;
  v.draft = {};
  v.history = [];
  v.placed = null;
  v.decided = null;
  v.step = null;
  v.seen = new Set();
  v.settled = null;
  if (v.you && v.you.round_id !== message.round_id) v.you = null;
}

function onYou(message) {
  v.you = message;
  const positions = message.player?.positions || [];
  if (positions.length && !v.placed) {
    // A bet this page did not place (another tab, or a reload): show it as placed.
    v.placed = { round_id: message.round_id, bets: betsFromPositions(positions) };
  }
  schedule();
}

function onStep(message) {
  if (!message.card) return; // the step closed with nobody taking a card
  v.step = { ...message, at: performance.now() };
  const text = t("table.step_card", {
    n: message.step,
    card: cardText(message.card),
    count: message.takers,
  });
  log(text);
  schedule();
}

function onSettled(message) {
  v.settled = message;
  if (Array.isArray(message.results) && message.results.length) {
    v.lastResult = { roundId: message.round_id, positions: message.results, balance: message.balance };
  }
  if (Array.isArray(message.results) && message.round_id === v.roundId) {
    // The settled results are the final word on this player's positions.
    v.you = { ...(v.you || {}), round_id: message.round_id, player: { ...(v.you?.player || {}), positions: message.results } };
  }
  const net = netOf(v.you?.player?.positions || []) ?? settledNet(message);
  if (net !== null) log(t("table.round_net", { n: v.state?.round_no ?? "", amount: signedMoney(net) }));
  schedule();
}

function onNotice(message) {
  const detail = message.detail && typeof message.detail === "object" ? message.detail : {};
  let text = t(`notice.${message.kind}`, {
    n: detail.shoe_number ?? "",
    commitment: String(detail.commitment ?? "").slice(0, 12),
  });
  if (message.kind === "shuffle" && detail.burn?.revealed) {
    text += " " + t("notice.burn", { card: cardText(detail.burn.revealed), count: detail.burn.burned?.length ?? 0 });
  }
  log(text);
  toast(text, message.kind === "cancelled" || message.kind === "paused" ? "warn" : "info");
  schedule();
}

function log(text) {
  v.log.unshift({ text, at: new Date() });
  v.log.length = Math.min(v.log.length, MAX_LOG);
}

/** Say it once in the table's live region (timer starts, your turn, results). */
function announce(text) {
  if (v?.live && text && v.live.textContent !== text) v.live.textContent = text;
}

// ---- derived data -------------------------------------------------------------------------
function pub() {
  return v.state?.public || {};
}

function myPositions() {
  if (!v.you || v.you.round_id !== v.roundId) return [];
  return v.you.player?.positions || [];
}

function positionOn(spot) {
  return myPositions().find((position) => position.spot === spot) || null;
}

function betsFromPositions(positions) {
  const bets = {};
  for (const position of positions) {
    const entry = {};
    if (position.main) entry.main = position.main;
    for (const [key, side] of Object.entries(position.side_bets || {})) if (side.stake) entry[key] = side.stake;
    bets[String(position.spot)] = entry;
  }
  return bets;
}

function netOf(positions) {
  if (!positions.length) return null;
  let staked = 0;
  let paid = 0;
  for (const position of positions) {
    staked += position.staked || 0;
    paid += position.paid || 0;
  }
  return paid - staked;
}

function settledNet(message) {
  if (typeof message.net === "number") return message.net;
  if (typeof message.paid === "number" && typeof message.staked === "number") return message.paid - message.staked;
  return null;
}

function spotNumbers() {
  return Array.from({ length: v.rules?.table?.spots || 1 }, (_, i) => i + 1);
}

function offeredSideBets() {
  const left = pub().side_bets_rounds_left;
  if (left && typeof left === "object") return Object.keys(left);
  return (v.rules?.side_bets || []).map((bet) => bet.key);
}

function roundsLeft(key) {
  const left = pub().side_bets_rounds_left || {};
  return key in left ? left[key] : null;
}

function sideAvailable(key) {
  const left = roundsLeft(key);
  return left === null || left > 0;
}

function chipValues() {
  const limits = v.rules?.limits;
  if (!limits) return [];
  const sideMins = (v.rules.side_bets || []).map((bet) => bet.min_amount);
  const smallest = Math.min(limits.min_main_amount, ...sideMins);
  const values = CHIP_STEPS.map((step) => step * limits.unit_amount).filter(
    (value) => value >= Math.min(smallest, limits.unit_amount) && value <= limits.max_main_amount,
  );
  return values.slice(0, MAX_CHIPS);
}

function bettingOpen() {
  return pub().phase === "betting" && !pub().paused && !v.placed;
}

function draftTotal(draft = v.draft) {
  let total = 0;
  for (const entry of Object.values(draft)) for (const amount of Object.values(entry)) total += amount;
  return total;
}

function spotTotal(entry) {
  return Object.values(entry || {}).reduce((sum, amount) => sum + amount, 0);
}

function occupiedSpots(draft = v.draft) {
  return Object.keys(draft).filter((spot) => spotTotal(draft[spot]) > 0).map(Number);
}

/** Problems with the draft that the server would refuse; each is a translated sentence. */
function draftProblems() {
  const problems = [];
  const rules = v.rules;
  if (!rules) return problems;
  const limits = rules.limits;
  const occupied = occupiedSpots();
  for (const spot of occupied) {
    const main = v.draft[spot].main || 0;
    if (main && main < limits.min_main_amount) {
      problems.push(t("bet.below_min", { spot, min: money(limits.min_main_amount) }));
    }
    for (const [key, amount] of Object.entries(v.draft[spot])) {
      if (key === "main" || !amount) continue;
      const bet = sideBetRules(rules, key);
      if (bet && amount < bet.min_amount) {
        problems.push(t("bet.side_below_min", { name: sideBetName(rules, key), min: money(bet.min_amount) }));
      }
      if (bet?.target === "dealer" && !Object.entries(v.draft[spot]).some(([other, value]) => other !== key && value > 0 && sideBetRules(rules, other)?.target !== "dealer")) {
        problems.push(t("bet.dealer_needs_other", { name: sideBetName(rules, key) }));
      }
    }
  }
  const multiple = rules.table.main_bet_max_multiple_of_right || 0;
  if (multiple > 0) {
    for (const spot of occupied) {
      const right = occupied.filter((other) => other > spot).sort((a, b) => a - b)[0];
      const main = v.draft[spot].main || 0;
      if (right !== undefined && main > multiple * spotTotal(v.draft[right])) {
        problems.push(t("bet.seat_rule", { spot, right, n: multiple, max: money(multiple * spotTotal(v.draft[right])) }));
      }
    }
  }
  if (session.player && draftTotal() > session.player.balance) problems.push(t("bet.not_enough"));
  return problems;
}

// ---- player actions ------------------------------------------------------------------------
function addChip(spot, key) {
  if (!bettingOpen() || !v.chip || !v.rules) return;
  const limit = key === "main" ? v.rules.limits.max_main_amount : sideBetRules(v.rules, key)?.max_amount;
  const entry = { ...(v.draft[spot] || {}) };
  const before = entry[key] || 0;
  const after = Math.min(before + v.chip, limit ?? Infinity);
  if (after === before) {
    toast(t("bet.at_limit", { max: money(limit) }), "warn");
    return;
  }
  entry[key] = after;
  v.draft = { ...v.draft, [spot]: entry };
  v.history.push({ spot, key, amount: after - before });
  schedule();
}

function undo() {
  const last = v.history.pop();
  if (!last) return;
  const entry = { ...v.draft[last.spot] };
  entry[last.key] = (entry[last.key] || 0) - last.amount;
  if (entry[last.key] <= 0) delete entry[last.key];
  v.draft = { ...v.draft, [last.spot]: entry };
  schedule();
}

function clearDraft() {
  v.draft = {};
  v.history = [];
  schedule();
}

function rebet() {
  if (!v.lastBets) return;
  v.draft = {};
  v.history = [];
  for (const [spot, entry] of Object.entries(v.lastBets)) {
    const kept = {};
    for (const [key, amount] of Object.entries(entry)) {
      if (key === "main" || (offeredSideBets().includes(key) && sideAvailable(key))) kept[key] = amount;
    }
    v.draft[spot] = kept;
    for (const [key, amount] of Object.entries(kept)) v.history.push({ spot, key, amount });
  }
  schedule();
}

async function placeBets() {
  if (!bettingOpen() || v.placing) return;
  const bets = {};
  for (const spot of occupiedSpots()) {
    bets[String(spot)] = Object.fromEntries(Object.entries(v.draft[spot]).filter(([, amount]) => amount > 0));
  }
  if (!Object.keys(bets).length) return;
  v.placing = true;
  schedule();
  const betId = newBetId();
  try {
    await send("bet", { table_id: v.tableId, bet_id: betId, bets });
    v.placed = { round_id: v.roundId, bets };
    v.lastBets = bets;
    log(t("bet.placed_log", { amount: money(draftTotal(bets)) }));
  } catch (error) {
    toast(errorText(error), "bad");
  } finally {
    v.placing = false;
    schedule();
  }
}

async function decide(spot, action) {
  const step = pub().step;
  v.decided = { round_id: v.roundId, spot, step, action, you: v.you };
  schedule();
  try {
    await send("decide", { table_id: v.tableId, spot, step, action });
  } catch (error) {
    v.decided = null;
    toast(errorText(error), "bad");
    send("resync", { table_id: v.tableId }).catch(() => {});
  }
  schedule();
}

async function insure(spot, kind) {
  v.insuranceDone.add(`${v.roundId}:${spot}`);
  schedule();
  if (!kind) return;
  try {
    await send("insurance", { table_id: v.tableId, spot, kind });
  } catch (error) {
    v.insuranceDone.delete(`${v.roundId}:${spot}`);
    toast(errorText(error), "bad");
  }
  schedule();
}

async function chooseSideBets(groups) {
  try {
    await send("choose_side_bets", { table_id: v.tableId, side_bets: groups });
    v.choosing = false;
  } catch (error) {
    toast(errorText(error), "bad");
  }
  schedule();
}

// ---- rendering -------------------------------------------------------------------------------
function schedule() {
  if (!v || v.frame) return;
  v.frame = requestAnimationFrame(() => {
    if (!v) return;
    v.frame = 0;
    draw();
  });
}

/** A card element that animates in the first time this slot shows a card this round. */
function card(slot, code, options = {}) {
  const id = `${slot}:${code ?? "back"}`;
  const isNew = !v.seen.has(id);
  v.seen.add(id);
  return cardElement(code, { ...options, fresh: isNew });
}

function draw() {
  if (!root) return;
  if (v.error && !v.state) {
    v.body.replaceChildren(h("p.error.panel", { role: "alert" }, errorText(v.error), " ", h("a", { href: "#/lobby" }, t("nav.lobby"))));
    return;
  }
  if (!v.state || !v.rules) return;
  // Redraw only when something shown changed: a redraw between a press and its release would
  // swallow the tap.
  const shown = JSON.stringify([
    currentLanguage(), v.state.round_id, v.state.round_no, v.state.public, v.state.timer?.kind,
    v.state.timer?.deadline_ms, v.state.seated, v.you, v.draft, v.placed, v.placing, v.decided?.action, v.chip,
    v.step?.spot, v.step?.step, awaitingStep(), v.log.length, v.lastResult?.roundId, v.choosing, [...v.insuranceDone],
    session.player?.balance,
  ]);
  if (shown === v.shown) return;
  v.shown = shown;
  setVocabulary(v.rules.title.vocabulary);
  const focused = document.activeElement?.id;
  v.body.replaceChildren(
    header(),
    h("div.table-layout", {},
      h("section.felt", { "aria-label": t("table.felt"), dataset: { roundId: v.roundId ?? "" } },
        dealerZone(),
        h("p.felt-arc", { "aria-hidden": "true" }, feltText()),
        h("div.spots", { dataset: { count: spotNumbers().length } }, spotNumbers().map(spotZone)),
        pub().paused ? h("div.paused-overlay", { role: "status" }, t("table.paused")) : null,
      ),
      h("section.dock", { "aria-label": t("table.controls") }, dock()),
      h("aside.side-panel", {}, resultPanel(), stepPanel(), logPanel()),
    ),
  );
  announce(statusLine());
  if (focused) document.getElementById(focused)?.focus();
  drawTimer();
}

function header() {
  const p = pub();
  return h("header.table-header", {},
    h("div.table-title", {},
      h("a.back-link", { href: "#/lobby", "aria-label": t("nav.lobby") }, "‹"),
      h("h1", {}, titleName(v.rules.title.key, v.rules.title.name)),
      h("a.rules-link", { href: `#/rules/${encodeURIComponent(v.rules.title.key)}` }, t("lobby.rules")),
    ),
    h("dl.table-facts", {},
      fact(t("table.round"), v.state.round_no ?? "–"),
      fact(t("table.shoe_round"), p.round_in_shoe ?? "–"),
      fact(t("table.seated"), v.state.seated ?? p.positions ?? 0),
      fact(t("table.phase"), h("span#phase-label", { dataset: { phase: p.paused ? "paused" : p.phase } }, t(`phase.${p.paused ? "paused" : p.phase}`))),
    ),
    h("div.timer#timer", { role: "timer", "aria-label": t("table.timer") },
      h("span.timer-ring", { "aria-hidden": "true" }),
      h("span.timer-text#timer-text", {}, ""),
      h("span.timer-kind#timer-kind", {}, ""),
    ),
  );
}

function fact(label, value) {
  return h("div.fact", {}, h("dt", {}, label), h("dd", {}, value));
}

function drawTimer() {
  if (!v?.state) return;
  const box = document.getElementById("timer");
  if (!box) return;
  const timer = v.state.timer;
  if (!timer || pub().paused) {
    box.hidden = true;
    return;
  }
  const seconds = v.rules?.timers?.[`${timer.kind === "decision" ? "decision" : timer.kind}_seconds`] || 10;
  const left = Math.max(0, timer.deadline_ms - serverNow());
  box.hidden = false;
  box.style.setProperty("--left", String(Math.min(1, left / (seconds * 1000))));
  box.classList.toggle("timer-urgent", left < 3000);
  document.getElementById("timer-text").textContent = String(Math.ceil(left / 1000));
  document.getElementById("timer-kind").textContent = t(`timer_kind.${timer.kind}`);
}

function feltText() {
  const r = v.rules;
  const parts = [t("felt.blackjack_pays", { pays: r.payouts.blackjack })];
  parts.push(r.dealer.hits_soft_17 ? t("felt.hits_soft_17") : t("felt.stands_17"));
  if (r.insurance.offered) parts.push(t("felt.insurance_pays", { pays: r.insurance.pays }));
  return parts.flatMap((part, i) => (i ? [" · ", h("span.nowrap", {}, part)] : [h("span.nowrap", {}, part)]));
}

function dealerZone() {
  const dealer = pub().dealer || { cards: [] };
  const cards = dealer.cards.map((code, i) => card(`d${i}`, code));
  if (dealer.hole_hidden) cards.splice(1, 0, card("dhole", null));
  return h("div.dealer-zone", {},
    h("div.zone-label", {}, t("table.dealer"), dealer.total ? h("span.total#dealer-total", {}, String(dealer.total)) : null),
    h("div.card-row.dealer-cards", { "aria-label": t("table.dealer_cards") }, cards),
  );
}

function spotZone(spot) {
  const p = pub();
  const shared = p.spots?.[String(spot)] || { cards: [], step_cards: [], step_takers: [] };
  const position = positionOn(spot);
  const current = p.phase === "decisions" && p.current_spot === spot;
  return h(`div.spot${current ? ".spot-current" : ""}`, { dataset: { spot } },
    v.rules.table.spots > 1 ? h("div.spot-label", {}, t("table.spot", { n: spot })) : null,
    h("div.shared-cards", {},
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
        h("span.step-takers", {}, t("table.took_it", { count: shared.step_takers?.[i] ?? 0 })),
      ),
    ),
  );
}

function myHands(position) {
  return h("div.my-hands", { "aria-label": t("table.your_hands") },
    position.hands.map((hand, index) => {
      const active = position.current_hand === index && pub().phase === "decisions";
      const tookLatest = v.step && v.step.spot === position.spot && hand.cards.includes(v.step.card) && hand.cards[hand.cards.length - 1] === v.step.card;
      return h(`div.my-hand${active ? ".hand-active" : ""}${tookLatest ? ".hand-took" : ""}`, { dataset: { hand: index, status: hand.status } },
        h("div.hand-head", {},
          h("span.hand-label", {}, position.hands.length > 1 ? t("table.hand_n", { n: index + 1 }) : t("table.your_hand")),
          h("span.total.hand-total", {}, String(hand.total)),
          hand.autoplayed ? h("span.tag.tag-auto", {}, t("table.autoplayed")) : null,
        ),
        h("div.card-row", {}, hand.cards.map((code, i) => card(`h${position.spot}-${index}c${i}`, code))),
        h("div.hand-foot", {},
          h("span.hand-bet", {}, t("table.bet_amount", { amount: money(hand.bet) })),
          hand.outcome
            ? h(`span.outcome.outcome-${hand.outcome}`, {}, t(`outcome.${hand.outcome}`), hand.payout !== null ? ` · ${money(hand.payout)}` : "")
            : h("span.status", {}, t(`status.${hand.status}`)),
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
  return h("div.bet-area", {},
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
  const resultText = result?.outcome
    ? result.outcome === "win"
      ? `${patternName(v.rules, key, result.pattern)} +${money(result.payout)}`
      : t("outcome.lose")
    : null;
  return h(`button.bet-circle${main ? ".bet-main" : ".bet-side"}${amount ? ".has-chips" : ""}${result?.outcome === "win" ? ".bet-won" : ""}`, {
    type: "button",
    id: `bet-${spot}-${key}`,
    disabled,
    dataset: { spot, bet: key },
    "aria-label": t("bet.circle_label", { name: fullLabel || label, spot, amount: money(amount) }),
    onclick: () => addChip(spot, key),
  },
    h("span.bet-name", {}, label),
    amount ? h("span.chip-stack", { "aria-hidden": "true" }, h("span.chip.chip-on-spot", {}, shortMoney(amount))) : null,
    badge ? h("span.bet-badge", {}, badge) : null,
    resultText ? h("span.bet-result", {}, resultText) : null,
  );
}

// ---- the control dock ------------------------------------------------------------------------
function dock() {
  const p = pub();
  const items = [];
  const status = statusLine();
  items.push(h("p.dock-status#dock-status", {}, status));
  if (p.phase === "insurance") items.push(...insuranceOffers());
  if (p.phase === "decisions" && positionOn(p.current_spot)) items.push(actionBar());
  if (p.phase === "betting") items.push(bettingControls());
  return items;
}

function statusLine() {
  const p = pub();
  if (p.paused) return t("table.paused");
  if (p.phase === "betting") {
    if (v.placed) return t("bet.placed_wait", { amount: money(draftTotal(v.placed.bets)) });
    return t("bet.prompt");
  }
  if (p.phase === "insurance") return myPositions().length ? t("insurance.prompt") : t("table.watching");
  if (p.phase === "decisions") {
    const position = positionOn(p.current_spot);
    if (!position) return myPositions().length ? t("table.other_spot", { n: p.current_spot }) : t("table.watching");
    if (awaitingStep()) return t("table.you_chose", { action: actionName(v.rules, v.decided.action) });
    if (position.legal_actions.length) return t("table.your_turn", { step: p.step });
    return t("table.waiting_others");
  }
  if (p.phase === "dealer") return t("table.dealer_plays");
  if (p.phase === "settled" || p.phase === "settling") {
    const net = netOf(myPositions());
    if (net === null) return t("table.next_round_soon");
    return net > 0 ? t("result.won", { amount: money(net) }) : net < 0 ? t("result.lost", { amount: money(-net) }) : t("result.even");
  }
  if (p.phase === "cancelled") return t("table.cancelled");
  return "";
}

/** After a decision, until the step closes and a fresh view of the hand has come. */
function awaitingStep() {
  const d = v.decided;
  if (!d || d.round_id !== v.roundId) return false;
  const sameStep = d.step === pub().step && d.spot === pub().current_spot;
  return sameStep || v.you === d.you;
}

function actionBar() {
  const p = pub();
  const position = positionOn(p.current_spot);
  const legal = new Set(position?.legal_actions || []);
  const waiting = awaitingStep();
  const shown = ACTIONS.filter((action) => {
    if (action === "surrender20") return v.rules.split?.offered === "basic_strategy_pairs";
    if (action === "surrender") return v.rules.surrender?.allowed;
    if (action === "double") return v.rules.double?.allowed;
    if (action === "split") return v.rules.split?.allowed;
    return true;
  });
  return h("div.action-bar", { role: "group", "aria-label": t("table.actions") },
    shown.map((action) =>
      h(`button.btn.action-btn.action-${action}`, {
        type: "button",
        id: `action-${action}`,
        disabled: waiting || !legal.has(action),
        dataset: { action },
        onclick: () => decide(p.current_spot, action),
      }, actionName(v.rules, action)),
    ),
  );
}

function insuranceOffers() {
  return myPositions()
    .filter((position) => position.insurance_offer && !v.insuranceDone.has(`${v.roundId}:${position.spot}`))
    .map((position) => {
      const kind = position.insurance_offer;
      const cost = Math.floor((position.main * ratioNumber(v.rules.insurance.cost)));
      return h("div.insurance-offer", { role: "group", "aria-label": t(`insurance.${kind}`) },
        h("p", {}, kind === "even_money"
          ? t("insurance.even_money_text", { spot: position.spot, pays: v.rules.payouts.win })
          : t("insurance.insurance_text", { spot: position.spot, cost: money(cost), pays: v.rules.insurance.pays })),
        h("div.button-row", {},
          h("button.btn.btn-gold", { type: "button", id: `insure-${position.spot}`, onclick: () => insure(position.spot, kind) }, t(`insurance.take_${kind}`)),
          h("button.btn.btn-ghost", { type: "button", id: `decline-${position.spot}`, onclick: () => insure(position.spot, null) }, t("insurance.decline")),
        ),
      );
    });
}

function ratioNumber(text) {
  const [n, d] = String(text).split("/").map(Number);
  return d ? n / d : 0;
}

function bettingControls() {
  if (v.placed) return h("div.bet-controls", {}, sideChoice());
  const problems = draftProblems();
  const total = draftTotal();
  const chips = chipValues();
  return h("div.bet-controls", {},
    h("div.chip-tray", { role: "radiogroup", "aria-label": t("bet.chips") },
      chips.map((value, index) =>
        h(`button.chip.chip-${index}${v.chip === value ? ".chip-selected" : ""}`, {
          type: "button",
          role: "radio",
          "aria-checked": v.chip === value ? "true" : "false",
          "aria-label": t("bet.chip_label", { amount: money(value) }),
          dataset: { amount: value },
          onclick: () => {
            v.chip = value;
            schedule();
          },
        }, shortMoney(value)),
      ),
    ),
    h("p.bet-total", {}, t("bet.total", { amount: money(total) })),
    problems.length ? h("ul.bet-problems", { role: "alert" }, problems.map((text) => h("li", {}, text))) : null,
    h("div.button-row", {},
      h("button.btn.btn-ghost#bet-undo", { type: "button", disabled: !v.history.length, onclick: undo }, t("bet.undo")),
      h("button.btn.btn-ghost#bet-clear", { type: "button", disabled: !total, onclick: clearDraft }, t("bet.clear")),
      h("button.btn.btn-ghost#bet-rebet", { type: "button", disabled: !v.lastBets, onclick: rebet }, t("bet.rebet")),
      h("button.btn.btn-gold#bet-place", {
        type: "button",
        disabled: !total || problems.length > 0 || v.placing,
        onclick: placeBets,
      }, t("bet.place")),
    ),
    sideChoice(),
  );
}

/** Private tables where the player picks the side bets on offer (while no bet is placed). */
function sideChoice() {
  const offer = v.rules.side_bet_offer;
  if (offer?.mode !== "player_chooses" || v.placed) return null;
  const groups = sideBetGroups(v.rules);
  const offered = new Set(offeredSideBets().map((key) => sideBetRules(v.rules, key)?.offer_group || key));
  if (!v.choosing) {
    return h("button.btn.btn-ghost#choose-side-bets", { type: "button", onclick: () => { v.choosing = true; schedule(); } }, t("private.change_side_bets"));
  }
  const boxes = [];
  const update = () => {
    const count = boxes.filter((box) => box.checked).length;
    for (const box of boxes) box.disabled = !box.checked && count >= offer.choose_count;
  };
  const form = h("form.side-choice.panel", {
    onsubmit: (event) => {
      event.preventDefault();
      const chosen = boxes.filter((box) => box.checked).map((box) => box.value);
      if (chosen.length !== offer.choose_count) toast(t("private.choose_exactly", { n: offer.choose_count }), "warn");
      else chooseSideBets(chosen);
    },
  },
    h("fieldset", {},
      h("legend", {}, t("private.choose_side_bets", { n: offer.choose_count })),
      Object.entries(groups).map(([group, keys]) => {
        const box = h("input", { type: "checkbox", value: group, checked: offered.has(group), onchange: update });
        boxes.push(box);
        return h("label.check", {}, box, h("span", {}, sideBetName(v.rules, keys[0])));
      }),
    ),
    h("div.button-row", {},
      h("button.btn.btn-ghost", { type: "button", onclick: () => { v.choosing = false; schedule(); } }, t("common.cancel")),
      h("button.btn.btn-gold", { type: "submit" }, t("common.confirm")),
    ),
  );
  queueMicrotask(update);
  return form;
}

// ---- side panel ------------------------------------------------------------------------------
/** This round's results once settled; until then the last settled round of this visit. */
function resultPanel() {
  const p = pub();
  const done = p.phase === "settled" || p.phase === "cancelled";
  const current = done && myPositions().length ? { roundId: v.roundId, positions: myPositions(), balance: v.settled?.balance } : null;
  const shown = current || v.lastResult;
  const region = h("section.panel.result-panel#results", {
    "aria-labelledby": "results-heading",
    dataset: { roundId: shown?.roundId ?? "" },
  }, h("h2#results-heading", {}, shown && !current ? t("result.last_round") : t("result.heading")));
  if (!shown) {
    region.append(h("p.muted", {}, myPositions().length ? t("result.pending") : t("result.none")));
    return region;
  }
  const net = netOf(shown.positions);
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
        side.outcome === "win" ? patternName(v.rules, key, side.pattern) || t("outcome.win") : side.outcome ? t("outcome.lose") : "–",
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

function stepPanel() {
  if (!v.step) return null;
  const shared = pub().spots?.[String(v.step.spot)];
  const takers = v.step.takers;
  return h("section.panel.step-panel#step-panel", {},
    h("h2", {}, t("table.step_heading", { n: v.step.step })),
    h("div.step-show", {},
      cardElement(v.step.card, { fresh: performance.now() - v.step.at < 600 }),
      h("p", {}, t("table.step_takers", { count: takers }), shared && v.rules.table.spots > 1 ? h("br") : null, shared && v.rules.table.spots > 1 ? t("table.spot", { n: v.step.spot }) : null),
    ),
  );
}

function logPanel() {
  return h("section.panel.log-panel", {},
    h("h2", {}, t("table.log")),
    v.log.length
      ? h("ol.table-log", {}, v.log.map((entry) => h("li", {}, entry.text)))
      : h("p.muted", {}, t("table.log_empty")),
  );
}
