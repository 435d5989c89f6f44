// The control dock: the status line, the decision buttons, insurance offers and the betting
// controls (chips, undo/clear/repeat, place). Every button shows its keyboard shortcut.
import { h, money, shortMoney } from "../../format.js";
import { t } from "../../i18n.js";
import { toast } from "../../session.js";
import { actionName, sideBetGroups, sideBetName, sideBetRules } from "../rule_text.js";
import { canRebet, chooseSideBets, clearDraft, decide, insure, insureAll, placeBets, rebet, selectChip, undo } from "./actions.js";
import { actionShown, DECISIONS, keyHint } from "./keys.js";
import { wheelShows } from "./wheel.js";
import {
  awaitingStep,
  changed,
  chipValues,
  draftProblems,
  draftTotal,
  myPositions,
  offeredSideBets,
  openOffers,
  positionOn,
  pub,
  ratioNumber,
  settledNet,
  v,
} from "./state.js";

export function dock() {
  const p = pub();
  const items = [h("p.dock-status#dock-status", {}, statusLine())];
  if (p.phase === "decisions" && positionOn(p.current_spot)) items.push(actionBar());
  if (p.phase === "betting") items.push(bettingControls());
  if (p.phase === "settled") {
    const wheels = wheelShows(myPositions());
    if (wheels.length) items.push(h("div.wheel-shows#wheel-shows", {}, wheels));
  }
  return items;
}

/** One line saying where the round stands for you; a result only once `settled` is shown. */
export function statusLine() {
  const p = pub();
  if (p.paused) return t("table.paused");
  if (p.phase === "betting") {
    if (v.placed) return t("bet.placed_wait", { amount: money(draftTotal(v.placed.bets)) });
    return t("bet.prompt");
  }
  if (p.phase === "dealing") return t("table.dealing");
  if (p.phase === "insurance") return myPositions().length ? t("insurance.prompt") : t("table.watching");
  if (p.phase === "decisions") {
    const position = positionOn(p.current_spot);
    if (!position) return myPositions().length ? t("table.other_spot", { n: p.current_spot }) : t("table.watching");
    if (awaitingStep()) return t("table.you_chose", { action: actionName(v.rules, v.decided.action) });
    if (position.legal_actions.length) return t("table.your_turn", { step: p.step });
    return t("table.waiting_others");
  }
  if (p.phase === "dealer") return t("table.dealer_plays");
  if (p.phase === "cancelled") return t("table.cancelled");
  if (p.phase === "settled" || p.phase === "settling") {
    if (!myPositions().length) return t("table.next_round_soon");
    const net = v.settled?.round_id === v.roundId ? settledNet(v.settled) : null;
    if (net === null) return t("table.settling");
    return net > 0 ? t("result.won", { amount: money(net) }) : net < 0 ? t("result.lost", { amount: money(-net) }) : t("result.even");
  }
  return "";
}

function withKey(label, name) {
  const key = keyHint(name);
  return key ? [h("span.btn-label", {}, label), h("kbd.key-hint", { "aria-hidden": "true" }, key)] : label;
}

function actionBar() {
  const p = pub();
  const position = positionOn(p.current_spot);
  const legal = new Set(position?.legal_actions || []);
  const waiting = awaitingStep();
  const shown = DECISIONS.filter(actionShown);
  return h("div.action-bar", { role: "group", "aria-label": t("table.actions"), dataset: { count: shown.length } },
    shown.map((action) =>
      h(`button.btn.action-btn.action-${action}`, {
        type: "button",
        id: `action-${action}`,
        disabled: waiting || !legal.has(action),
        dataset: { action },
        "aria-keyshortcuts": keyHint(action),
        onclick: () => decide(p.current_spot, action),
      }, withKey(actionName(v.rules, action), action)),
    ),
  );
}

/** Insurance and even money: one banner over the felt with its own countdown, one row and one
 * tap per spot, and where several spots have an offer one tap that answers them all (each spot
 * with its own kind). Null outside the insurance window or once every offer is answered. */
export function insuranceBanner() {
  if (pub().phase !== "insurance") return null;
  const offers = openOffers();
  if (!offers.length) return null;
  const all = offers.length > 1
    ? h("div.insurance-all.button-row", {},
        h("button.btn.btn-gold.btn-small#insure-all", { type: "button", onclick: () => insureAll(offers, true) }, t("insurance.take_all")),
        h("button.btn.btn-ghost.btn-small#decline-all", { type: "button", onclick: () => insureAll(offers, false) }, t("insurance.decline_all")),
      )
    : null;
  return h("div.insurance-banner#insurance-banner", { role: "group", "aria-label": t("insurance.insurance") },
    h("p.insurance-head", {}, h("span", {}, t("insurance.banner", { pays: v.rules.insurance.pays })),
      h("span.insurance-countdown#insurance-countdown", { "aria-hidden": "true" }, "")),
    offers.map((position, index) => {
      const kind = position.insurance_offer;
      const cost = Math.floor(position.main * ratioNumber(v.rules.insurance.cost));
      const first = index === 0;
      const sentence = kind === "even_money"
        ? t("insurance.even_money_text", { spot: position.spot, pays: v.rules.payouts.win })
        : t("insurance.insurance_text", { spot: position.spot, cost: money(cost), pays: v.rules.insurance.pays });
      return h("div.insurance-offer", { role: "group", "aria-label": sentence, title: sentence },
        h("p.offer-text", {}, kind === "even_money"
          ? t("insurance.row_even_money", { spot: position.spot, pays: v.rules.payouts.win })
          : t("insurance.row_insurance", { spot: position.spot, cost: money(cost) })),
        h("div.button-row", {},
          h("button.btn.btn-gold.btn-small", { type: "button", id: `insure-${position.spot}`, "aria-keyshortcuts": first ? "I" : undefined, onclick: () => insure(position.spot, kind) },
            first ? withKey(t(`insurance.take_${kind}`), "insure") : t(`insurance.take_${kind}`)),
          h("button.btn.btn-ghost.btn-small", { type: "button", id: `decline-${position.spot}`, "aria-keyshortcuts": first ? "N" : undefined, onclick: () => insure(position.spot, null) },
            first ? withKey(t("insurance.decline"), "decline") : t("insurance.decline")),
        ),
      );
    }),
    all,
  );
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
          "aria-keyshortcuts": String(index + 1),
          title: t("keys.chip_n", { n: index + 1 }),
          dataset: { amount: value, digits: shortMoney(value).length },
          onclick: () => selectChip(value),
        }, shortMoney(value)),
      ),
    ),
    h("p.bet-total", {}, t("bet.total", { amount: money(total) })),
    problems.length ? h("ul.bet-problems", { role: "alert" }, problems.map((text) => h("li", {}, text))) : null,
    h("div.button-row", {},
      h("button.btn.btn-ghost#bet-undo", { type: "button", disabled: !v.history.length, "aria-keyshortcuts": keyHint("undo"), onclick: undo }, withKey(t("bet.undo"), "undo")),
      h("button.btn.btn-ghost#bet-clear", { type: "button", disabled: !total, "aria-keyshortcuts": keyHint("clear"), onclick: clearDraft }, withKey(t("bet.clear"), "clear")),
      h("button.btn.btn-ghost#bet-rebet", { type: "button", disabled: !canRebet() || v.placing, "aria-keyshortcuts": keyHint("rebet"), onclick: () => rebet(1) }, withKey(t("bet.rebet"), "rebet")),
      h("button.btn.btn-ghost#bet-double", { type: "button", disabled: !canRebet() || v.placing, "aria-keyshortcuts": keyHint("rebet2"), onclick: () => rebet(2) }, withKey(t("bet.rebet_double"), "rebet2")),
      h("button.btn.btn-gold#bet-place", {
        type: "button",
        disabled: !total || problems.length > 0 || v.placing,
        "aria-keyshortcuts": keyHint("place"),
        onclick: placeBets,
      }, withKey(v.rules.table.shared ? t("bet.place") : t("bet.deal"), "place")),
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
    return h("button.btn.btn-ghost#choose-side-bets", { type: "button", onclick: () => { v.choosing = true; changed(); } }, t("private.change_side_bets"));
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
      h("button.btn.btn-ghost", { type: "button", onclick: () => { v.choosing = false; changed(); } }, t("common.cancel")),
      h("button.btn.btn-gold", { type: "submit" }, t("common.confirm")),
    ),
  );
  queueMicrotask(update);
  return form;
}
