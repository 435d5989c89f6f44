// What the player does at the table: chips, the draft and its undo, placing bets, decisions,
// insurance and (private tables) choosing the side bets on offer.
import { money } from "../../format.js";
import { t } from "../../i18n.js";
import { errorText, toast } from "../../session.js";
import { newBetId, send } from "../../socket.js";
import { sideBetRules } from "../rule_text.js";
import { play } from "./sound.js";
import { bettingOpen, changed, draftProblems, draftTotal, occupiedSpots, pub, v } from "./state.js";

/** A log line kept as its string key and values, so it is worded when drawn, in the language
 * shown then (amounts and cards too: see panels.js). */
export function log(key, params = {}) {
  logParts([[key, params]]);
}

/** A log line of several sentences, each [key, params]. */
export function logParts(parts) {
  v.log.unshift({ parts, at: new Date() });
  v.log.length = Math.min(v.log.length, 30);
  changed();
}

export function selectChip(value) {
  v.chip = value;
  changed();
}

export function addChip(spot, key) {
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
  play("chip");
  v.draft = { ...v.draft, [spot]: entry };
  v.history.push({ spot, key, amount: after - before });
  changed();
}

export function undo() {
  const last = v.history.pop();
  if (!last) return;
  const entry = { ...v.draft[last.spot] };
  entry[last.key] = (entry[last.key] || 0) - last.amount;
  if (entry[last.key] <= 0) delete entry[last.key];
  v.draft = { ...v.draft, [last.spot]: entry };
  changed();
}

export function clearDraft() {
  v.draft = {};
  v.history = [];
  changed();
}

/** Repeat (x1) or Double (x2) the last bets at this table: the server's ``rebet`` applies the
 * one rule (limits, balance, closed side bets) and places them at once. */
export async function rebet(multiplier = 1) {
  if (!canRebet() || v.placing) return;
  v.placing = true;
  changed();
  try {
    const answer = await send("rebet", { table_id: v.tableId, bet_id: newBetId(), multiplier });
    if (!v) return;
    v.placed = { round_id: v.roundId, bets: answer.bets };
    v.lastBets = answer.bets;
    v.draft = {};
    v.history = [];
    log("bet.placed_log", { amount: { money: draftTotal(answer.bets) } });
  } catch (error) {
    toast(errorText(error), "bad");
  } finally {
    if (v) {
      v.placing = false;
      changed();
    }
  }
}

/** Whether Repeat and Double can be offered: betting is open and there is a last bet here. */
export function canRebet() {
  return bettingOpen() && Boolean(v.lastBets || v.tableHistory?.length);
}

export async function placeBets() {
  if (!bettingOpen() || v.placing || draftProblems().length) return;
  const bets = {};
  for (const spot of occupiedSpots()) {
    bets[String(spot)] = Object.fromEntries(Object.entries(v.draft[spot]).filter(([, amount]) => amount > 0));
  }
  if (!Object.keys(bets).length) return;
  v.placing = true;
  changed();
  const betId = newBetId();
  try {
    await send("bet", { table_id: v.tableId, bet_id: betId, bets });
    if (!v) return;
    v.placed = { round_id: v.roundId, bets };
    v.lastBets = bets;
    log("bet.placed_log", { amount: { money: draftTotal(bets) } });
  } catch (error) {
    toast(errorText(error), "bad");
  } finally {
    if (v) {
      v.placing = false;
      changed();
    }
  }
}

export async function decide(spot, action) {
  const step = pub().step;
  v.decided = { round_id: v.roundId, spot, step, action, you: v.you };
  changed();
  try {
    await send("decide", { table_id: v.tableId, spot, step, action });
  } catch (error) {
    if (!v) return;
    v.decided = null;
    toast(errorText(error), "bad");
    send("resync", { table_id: v.tableId }).catch(() => {});
  }
  changed();
}

/** Take (kind) or decline (null) the offer on a spot; both are told to the server. */
export async function insure(spot, kind) {
  const key = `${v.roundId}:${spot}`;
  v.insuranceDone.add(key);
  changed();
  try {
    await send("insurance", { table_id: v.tableId, spot, kind: kind ?? "decline" });
  } catch (error) {
    if (!v) return;
    // An older server knows no "decline": the offer simply runs out there.
    if (!kind && error.code === "bad_message") return;
    v.insuranceDone.delete(key);
    toast(errorText(error), "bad");
  }
  changed();
}

/** One tap for every open offer: take each (with its own kind) or decline each. */
export function insureAll(offers, take) {
  return Promise.all(offers.map((position) => insure(position.spot, take ? position.insurance_offer : null)));
}

export async function chooseSideBets(groups) {
  try {
    await send("choose_side_bets", { table_id: v.tableId, side_bets: groups });
    v.choosing = false;
  } catch (error) {
    toast(errorText(error), "bad");
  }
  changed();
}
