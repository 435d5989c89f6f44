// The table view's one state object and the queries every part of the table reads from it.
//
// Redraws are driven by a version number: whatever changes the state calls changed(), which bumps
// v.version and schedules one redraw; the draw skips a frame whose version it has drawn (a
// redraw between a press and its release would swallow the tap).
import { money } from "../../format.js";
import { t } from "../../i18n.js";
import { session } from "../../session.js";
import { sideBetName, sideBetRules } from "../rule_text.js";

const CHIP_STEPS = [1, 5, 25, 100, 500, 1000, 5000, 25000];
const MAX_CHIPS = 6;

/** The view's state; null while no table is mounted. A live binding: read it as `v`. */
export let v = null;
let redraw = () => {};

export function setView(next, draw = () => {}) {
  v = next;
  redraw = draw;
}

export function fresh(tableId) {
  return {
    tableId,
    version: 0,
    rules: null,
    // What the server sent (target) and what the page shows (state, you, settled): the pacer
    // (pacing.js) moves the shown copies towards the target one card at a time.
    target: { state: null, you: null, settled: null },
    state: null,
    you: null,
    settled: null,
    dealt: null, // {roundId, dealer, spots: {spot: n}}: how many cards of each slot are shown
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
    standing: false, // the next draw shows the cards a join found, without dealing them in
    roundId: null,
    log: [],
    lastResult: null, // {roundId, positions, balance} of the last settled round
    recent: [], // the last rounds' dealer results, newest first: [{roundNo, cards, total}]
    timerKind: null,
    choosing: false,
    help: false, // the keyboard help is open
    error: null,
    frame: 0,
    tick: 0,
    drawn: null, // the version (and language, balance) the last draw showed
  };
}

/** Something shown changed: bump the version and redraw once on the next frame. */
export function changed() {
  if (!v) return;
  v.version += 1;
  if (v.frame) return;
  v.frame = requestAnimationFrame(() => {
    if (!v) return;
    v.frame = 0;
    redraw();
  });
}

/** Draw now, in this task: a language switch shows the table in the new words at once
 * (never a frame of the old words under the new page language). */
export function drawNow() {
  if (!v) return;
  v.version += 1;
  if (v.frame) cancelAnimationFrame(v.frame);
  v.frame = 0;
  redraw();
}

// ---- derived data -------------------------------------------------------------------------
export function pub() {
  return v.state?.public || {};
}

export function myPositions() {
  if (!v.you || v.you.round_id !== v.roundId) return [];
  return v.you.player?.positions || [];
}

export function positionOn(spot) {
  return myPositions().find((position) => position.spot === spot) || null;
}

/** The open insurance offers, one per position; the first answers the keyboard's I and N. */
export function openOffers() {
  return myPositions().filter((position) => position.insurance_offer && !v.insuranceDone.has(`${v.roundId}:${position.spot}`));
}

export function betsFromPositions(positions) {
  const bets = {};
  for (const position of positions) {
    const entry = {};
    if (position.main) entry.main = position.main;
    for (const [key, side] of Object.entries(position.side_bets || {})) if (side.stake) entry[key] = side.stake;
    bets[String(position.spot)] = entry;
  }
  return bets;
}

/** The round's net from the settled message only: stakes alone never make a result. */
export function settledNet(message) {
  if (!message) return null;
  if (typeof message.net === "number") return message.net;
  if (typeof message.paid === "number" && typeof message.staked === "number") return message.paid - message.staked;
  return null;
}

export function netOfPositions(positions) {
  if (!positions.length) return null;
  let staked = 0;
  let paid = 0;
  for (const position of positions) {
    staked += position.staked || 0;
    paid += position.paid || 0;
  }
  return paid - staked;
}

export function spotNumbers() {
  return Array.from({ length: v.rules?.table?.spots || 1 }, (_, i) => i + 1);
}

export function offeredSideBets() {
  const left = pub().side_bets_rounds_left;
  if (left && typeof left === "object") return Object.keys(left);
  return (v.rules?.side_bets || []).map((bet) => bet.key);
}

export function roundsLeft(key) {
  const left = pub().side_bets_rounds_left || {};
  return key in left ? left[key] : null;
}

export function sideAvailable(key) {
  const left = roundsLeft(key);
  return left === null || left > 0;
}

export function chipValues() {
  const limits = v.rules?.limits;
  if (!limits) return [];
  const sideMins = (v.rules.side_bets || []).map((bet) => bet.min_amount);
  const smallest = Math.min(limits.min_main_amount, ...sideMins);
  const values = CHIP_STEPS.map((step) => step * limits.unit_amount).filter(
    (value) => value >= Math.min(smallest, limits.unit_amount) && value <= limits.max_main_amount,
  );
  return values.slice(0, MAX_CHIPS);
}

export function bettingOpen() {
  return pub().phase === "betting" && !pub().paused && !v.placed;
}

export function draftTotal(draft = v.draft) {
  let total = 0;
  for (const entry of Object.values(draft)) for (const amount of Object.values(entry)) total += amount;
  return total;
}

export function spotTotal(entry) {
  return Object.values(entry || {}).reduce((sum, amount) => sum + amount, 0);
}

export function occupiedSpots(draft = v.draft) {
  return Object.keys(draft).filter((spot) => spotTotal(draft[spot]) > 0).map(Number);
}

/** After a decision, until the step closes and a fresh view of the hand has come. */
export function awaitingStep() {
  const d = v.decided;
  if (!d || d.round_id !== v.roundId) return false;
  const sameStep = d.step === pub().step && d.spot === pub().current_spot;
  return sameStep || v.you === d.you;
}

/** Problems with the draft that the server would refuse; each is a translated sentence. */
export function draftProblems() {
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

export function ratioNumber(text) {
  const [n, d] = String(text).split("/").map(Number);
  return d ? n / d : 0;
}
