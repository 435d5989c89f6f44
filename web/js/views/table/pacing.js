// The paced round: the page shows the server's table one card at a time.
//
// The server moves at its own speed (it may go from the last decision to `settled` in
// milliseconds). Everything it sends lands in v.target; the page shows v.state, v.you and
// v.settled, which this module derives from the target with each card slot (the dealer, each
// spot's cards) cut to the cards dealt so far. It deals the missing cards one by one: spots
// round-robin, then the dealer (so the deal is spot 1, spot 2, ..., up card, spot 1, ...); when
// the dealer plays, the hole card turns first, then each draw lands. Until every card has
// landed, no result shows: hand outcomes, payouts, side-bet results and the settled message are
// held back, and the phase reads "dealing" or "dealer". With prefers-reduced-motion every card
// lands at once (the result still comes only with `settled`).
import { parseCard } from "../../format.js";
import { changed, v } from "./state.js";

export const CARD_MS = 380;
export const HOLE_MS = 650;
/** After the last card of a paced run lands, this long before the results (or actions) show. */
export const LAST_CARD_MS = 500;

let timer = 0;
let onLanded = () => {};
let onIdle = () => {};

/** ``landed(settled)`` once a round's result shows; ``idle()`` whenever the cards caught up. */
export function setLanded(landed, idle = () => {}) {
  onLanded = landed;
  onIdle = idle;
}

/** Whether cards are still landing (a later round's messages wait for them). */
export function dealing() {
  return Boolean(v?.dealt) && pending();
}

export function stopPacing() {
  clearTimeout(timer);
  timer = 0;
}

function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/** Blackjack total of the cards shown (aces count 11 when that does not bust). */
export function bestTotal(codes) {
  let total = 0;
  let aces = 0;
  for (const code of codes) {
    const { rank } = parseCard(code);
    if (rank === "A") aces += 1;
    total += rank === "A" ? 1 : "TJQK".includes(rank) ? 10 : Number(rank);
  }
  return aces && total + 10 <= 21 ? total + 10 : total;
}

function targetCounts() {
  const p = v.target.state?.public;
  const spots = {};
  for (const [spot, shared] of Object.entries(p?.spots || {})) spots[spot] = shared.cards.length;
  return { dealer: p?.dealer?.cards?.length ?? 0, spots };
}

/** Cards still to land, or the pause after the last one. */
function pending() {
  return behind() || Boolean(v.dealt?.hold);
}

function behind() {
  const want = targetCounts();
  if (!v.dealt) return false;
  if (v.dealt.dealer < want.dealer) return true;
  return Object.entries(want.spots).some(([spot, n]) => (v.dealt.spots[spot] ?? 0) < n);
}

/**
 * A new message reached the target. ``instant``: show it as it is (a join or a resync shows
 * the table as it stands, it does not replay it).
 */
export function retarget({ instant = false } = {}) {
  const roundId = v.target.state?.round_id ?? null;
  if (instant || !v.dealt || reducedMotion()) {
    stopPacing();
    v.dealt = { roundId, ...targetCounts(), hold: false };
    // The cards already on the table were dealt before this page looked: the next draw shows
    // them standing (no deal-in flight, no deal sound) rather than dealing them again.
    if (instant) v.standing = true;
  } else if (v.dealt.roundId !== roundId) {
    stopPacing();
    v.dealt = { roundId, dealer: 0, spots: {}, hold: false };
  }
  show();
  if (behind() && !timer) timer = setTimeout(dealOne, 0);
}

function dealOne() {
  timer = 0;
  if (!v || !behind()) return;
  const want = targetCounts();
  // The next slot: the one with the fewest cards that still lacks some, spots before the dealer.
  const slots = [...Object.keys(want.spots).sort((a, b) => a - b).map((spot) => ["spot", spot]), ["dealer"]];
  let next = null;
  let fewest = Infinity;
  for (const slot of slots) {
    const have = slot[0] === "dealer" ? v.dealt.dealer : v.dealt.spots[slot[1]] ?? 0;
    const need = slot[0] === "dealer" ? want.dealer : want.spots[slot[1]];
    if (have < need && have < fewest) {
      next = slot;
      fewest = have;
    }
  }
  const turnsHole = next[0] === "dealer" && v.dealt.dealer === 1 && holeCard();
  if (next[0] === "dealer") v.dealt.dealer += 1;
  else v.dealt.spots[next[1]] = (v.dealt.spots[next[1]] ?? 0) + 1;
  if (!behind()) v.dealt.hold = true;
  show();
  if (behind()) timer = setTimeout(dealOne, turnsHole ? HOLE_MS : CARD_MS);
  else timer = setTimeout(release, turnsHole ? HOLE_MS : LAST_CARD_MS);
}

function release() {
  timer = 0;
  if (!v?.dealt) return;
  v.dealt.hold = false;
  if (behind()) {
    timer = setTimeout(dealOne, 0);
    return;
  }
  show();
}

function holeCard() {
  return v.rules?.dealer?.hole_card === "peek";
}

/** Derive what the page shows from the target and the cards dealt so far. */
function show() {
  const target = v.target;
  if (!pending()) {
    v.state = target.state;
    v.you = target.you;
    v.settled = target.settled;
    changed();
    if (target.settled) onLanded(target.settled);
    onIdle();
    return;
  }
  const want = targetCounts();
  const p = structuredClone(target.state.public);
  const spotsDone = Object.entries(want.spots).every(([spot, n]) => (v.dealt.spots[spot] ?? 0) >= n);
  const dealerCards = p.dealer.cards.slice(0, v.dealt.dealer);
  // The hole card lies face down once it is dealt (after every spot's second card) and until
  // it turns over as the dealer's play begins.
  const holeDown = p.dealer.hole_hidden
    ? dealerCards.length >= 1 && spotsDone
    : holeCard() && dealerCards.length === 1 && want.dealer > 1;
  p.dealer = { ...p.dealer, cards: dealerCards, hole_hidden: holeDown, total: dealerCards.length ? bestTotal(dealerCards) : null };
  const hidden = {};
  for (const [spot, shared] of Object.entries(p.spots || {})) {
    const shown = v.dealt.spots[spot] ?? 0;
    hidden[spot] = shared.cards.length - shown;
    shared.cards = shared.cards.slice(0, shown);
  }
  if (!spotsDone || (p.phase !== "settling" && p.phase !== "settled" && want.dealer <= 1)) p.phase = "dealing";
  else if (["settling", "settled", "dealer"].includes(p.phase)) p.phase = "dealer";
  v.state = { ...target.state, public: p };
  v.you = target.you ? maskYou(target.you, hidden) : null;
  v.settled = null;
  changed();
}

/** The player's positions as far as the cards have landed: no outcome, payout or offer yet. */
function maskYou(you, hidden) {
  const positions = (you.player?.positions || []).map((position) => ({
    ...position,
    legal_actions: [],
    insurance_offer: null,
    paid: 0,
    hands: position.hands.map((hand) => {
      const cards = hand.cards.slice(0, Math.max(0, hand.cards.length - (hidden[String(position.spot)] ?? 0)));
      const cut = cards.length < hand.cards.length;
      return {
        ...hand,
        cards,
        total: cut ? bestTotal(cards) : hand.total,
        status: cut ? "needs_card" : hand.status,
        outcome: null,
        payout: null,
      };
    }),
    side_bets: Object.fromEntries(
      Object.entries(position.side_bets || {}).map(([key, side]) => [key, { ...side, outcome: null, payout: null, pattern: null }]),
    ),
    insurance: position.insurance ? { ...position.insurance, outcome: null, payout: null } : null,
  }));
  return { ...you, player: { ...you.player, positions } };
}
