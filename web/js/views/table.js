// The table view: joins the table, takes the server's messages into the view state and draws
// the parts of the table (table/felt.js, table/dock.js, table/panels.js) whenever the state's
// version moved. Everything is driven by the title's rule set and the server's state/you
// messages: no branch on a title's name. The paced reveal lives in table/pacing.js.
import { api } from "../api.js";
import { h } from "../format.js";
import { currentLanguage, setVocabulary, t } from "../i18n.js";
import { errorText, session, toast } from "../session.js";
import { on, send, serverNow } from "../socket.js";
import { log, logParts } from "./table/actions.js";
import { dock, insuranceBanner, statusLine } from "./table/dock.js";
import { dealerZone, drawTimer, feltText, header, spotZones } from "./table/felt.js";
import { helpPanel, onKey } from "./table/keys.js";
import { dealing, retarget, setLanded, stopPacing } from "./table/pacing.js";
import { logText, recentStrip, sidePanel } from "./table/panels.js";
import { fitFelt, watchFit } from "./table/fit.js";
import { LAST_TITLE_KEY } from "./rules.js";
import { play } from "./table/sound.js";
import { loadTableRow } from "./table/private_controls.js";
import { loadHistory, loadStats } from "./table/history.js";
import { betsFromPositions, changed, chipValues, drawNow, fresh, pub, setView, settledNet, v } from "./table/state.js";

const MAX_RECENT = 12;

let root = null;
const unsubscribers = [];
let resyncing = true; // the next state shows the table as it stands (no replayed deal)

export function mount(element, tableId) {
  root = element;
  setView(fresh(decodeURIComponent(tableId)), draw);
  if (!session.player) {
    root.replaceChildren(
      h("p.panel", {}, t("table.sign_up_first"), " ", h("a", { href: "#/lobby" }, t("nav.lobby"))),
    );
    return;
  }
  setLanded(landed, () => {
    noteRecent();
    drainQueue();
  });
  unsubscribers.push(
    on("state", (m) => m.table_id === v.tableId && later(m, onState)),
    on("you", (m) => m.table_id === v.tableId && later(m, onYou)),
    on("step", (m) => m.table_id === v.tableId && later(m, onStep)),
    on("settled", (m) => m.table_id === v.tableId && onSettled(m)),
    on("notice", (m) => m.table_id === v.tableId && onNotice(m)),
    on("reconnected", () => join()),
    session.onChange(() => changed()),
  );
  document.addEventListener("keydown", onKey);
  unsubscribers.push(() => document.removeEventListener("keydown", onKey));
  v.tick = setInterval(drawTimer, 200);
  document.body.classList.add("at-table");
  unsubscribers.push(() => document.body.classList.remove("at-table"), watchFit());
  // Redraws replace v.body only: the live region stays in place so screen readers announce it.
  v.body = h("div.table-view", {}, h("p.loading", {}, t("app.loading")));
  v.live = h("div.sr-only#table-live", { "aria-live": "polite", "aria-atomic": "true" });
  root.replaceChildren(v.body, v.live);
  join();
  loadTableRow();
  loadHistory();
}

export function unmount() {
  if (v?.tick) {
    clearInterval(v.tick);
    send("leave", { table_id: v.tableId }).catch(() => {});
  }
  stopPacing();
  while (unsubscribers.length) unsubscribers.pop()();
  root = null;
  setView(null);
}

export function render() {
  drawNow();
}

/** A "you" of a round being settled at this table: its balance already holds the result, which
 * the wallet shows only with the result line (when the cards have landed). */
export function holdsBalance(message) {
  return holdsResult(message) && ["settling", "settled"].includes(message?.phase);
}

/** Whether this view shows a result when its cards have landed (the wallet waits for it). */
export function holdsResult(message) {
  return Boolean(v && root && message?.table_id === v.tableId);
}

async function join() {
  resyncing = true;
  if (v) v.queue = [];
  try {
    await send("join", { table_id: v.tableId });
    await send("resync", { table_id: v.tableId }).catch(() => {});
  } catch (error) {
    if (!v) return;
    v.error = error;
    changed();
  }
}

// ---- incoming messages --------------------------------------------------------------------
/** A later round's messages wait until this round's cards and result have landed. */
function later(message, handle) {
  if (v.queue?.length || (dealing() && message.round_id !== v.roundId && v.roundId !== null)) {
    (v.queue ??= []).push([message, handle]);
    return;
  }
  handle(message);
}

function drainQueue() {
  while (v?.queue?.length && !dealing()) {
    const [message, handle] = v.queue.shift();
    handle(message);
  }
}

function sameState(a, b) {
  if (!a || !b) return false;
  return JSON.stringify({ ...a, server_ms: 0 }) === JSON.stringify({ ...b, server_ms: 0 });
}

async function onState(message) {
  if (sameState(v.target.state, message)) return;
  const first = !v.target.state;
  if (message.round_id !== v.roundId) newRound(message);
  v.target.state = message;
  if (first || !v.rules) {
    const view = v;
    let rules = null;
    try {
      rules = await api.title(message.public.title);
    } catch (error) {
      view.error = error;
    }
    // A switch to another table meanwhile: this answer is the old table's, not the new view's.
    if (v !== view) return;
    v.rules ??= rules;
    v.chip ??= chipValues()[0] ?? null;
    if (v.rules) sessionStorage.setItem(LAST_TITLE_KEY, v.rules.title.key);
  }
  const kind = message.timer?.kind ?? null;
  if (kind !== v.timerKind) {
    v.timerKind = kind;
    if (message.timer) {
      const seconds = Math.max(0, Math.round((message.timer.deadline_ms - serverNow()) / 1000));
      announce(t(`timer.${message.timer.kind}`, { seconds }));
    }
  }
  retarget({ instant: resyncing || first });
  resyncing = false;
}

function newRound(message) {
  // The last round's result lands now if its cards were still being dealt.
  if (v.target.settled && v.target.settled.round_id === v.roundId) landed(v.target.settled);
  if (v.roundId !== null && v.placed?.bets) v.lastBets = v.placed.bets;
  v.roundId = message.round_id;
  v.draft = {};
  v.history = [];
  v.placed = null;
  v.decided = null;
  v.step = null;
  v.seen = new Set();
  v.wheels = new Map();
  v.target.settled = null;
  if (v.target.you && v.target.you.round_id !== message.round_id) v.target.you = null;
}

function onYou(message) {
  if (message.round_id !== v.roundId && v.target.state) return; // a view of another round
  v.target.you = message;
  const positions = message.player?.positions || [];
  if (positions.length && !v.placed) {
    // A bet this page did not place (another tab, or a reload): show it as placed.
    v.placed = { round_id: message.round_id, bets: betsFromPositions(positions) };
  }
  retarget({ instant: resyncing });
}

function onStep(message) {
  if (!message.card) return; // the step closed with nobody taking a card
  v.step = { ...message, at: performance.now() };
  log("table.step_card", { n: message.step, card: { card: message.card }, count: message.takers });
}

function onSettled(message) {
  if (message.round_id !== v.roundId) return;
  v.target.settled = message;
  if (Array.isArray(message.results)) {
    // The settled results are the final word on this player's positions.
    const you = v.target.you || { round_id: message.round_id, player: {} };
    v.target.you = { ...you, round_id: message.round_id, player: { ...you.player, positions: message.results } };
  }
  retarget();
}

/** Every card of the round has landed and its settled message is shown: say the result once. */
function landed(message) {
  if (v.landedRound === message.round_id) return;
  v.landedRound = message.round_id;
  const net = settledNet(message);
  if (Array.isArray(message.results) && message.results.length) {
    v.lastResult = { roundId: message.round_id, positions: message.results, balance: message.balance, net };
  }
  if (net !== null) log("table.round_net", { n: v.state?.round_no ?? "", amount: { signed: net } });
  if (net > 0) play("win");
  loadHistory();
  session.setBalance(message.balance);
  changed();
}

/** Every round the table finished goes on the strip, watched ones too, once its cards show. */
function noteRecent() {
  const shown = v?.state;
  const dealer = shown?.public?.dealer;
  if (shown?.public?.phase !== "settled" || !dealer?.cards?.length) return;
  if (v.recent.some((entry) => entry.roundNo === shown.round_no)) return;
  v.recent.unshift({ roundNo: shown.round_no, total: dealer.total, cards: dealer.cards });
  v.recent.sort((a, b) => b.roundNo - a.roundNo);
  v.recent.length = Math.min(v.recent.length, MAX_RECENT);
  if (v.panel === "stats") loadStats();
  changed();
}

function onNotice(message) {
  const detail = message.detail && typeof message.detail === "object" ? message.detail : {};
  // A title that reshuffles every round says so once, not with a notice each round.
  const everyRound = Boolean(v.rules?.shoe?.reshuffle_every_round);
  if (everyRound && (message.kind === "shuffle" || message.kind === "shoe_finished")) {
    if (!v.saidReshuffle) {
      v.saidReshuffle = true;
      log("notice.reshuffle_every_round");
    }
    return;
  }
  if (message.kind === "closed") {
    toast(t("notice.closed"), "warn");
    location.hash = "#/lobby";
    return;
  }
  const parts = [[`notice.${message.kind}`, {
    n: detail.shoe_number ?? "",
    commitment: String(detail.commitment ?? "").slice(0, 12),
  }]];
  if (message.kind === "shuffle" && detail.burn?.revealed) {
    const count = detail.burn.burned_count ?? detail.burn.burned?.length ?? 0;
    parts.push(["notice.burn", { card: { card: detail.burn.revealed }, count }]);
  }
  logParts(parts);
  const text = logText({ parts });
  const calm = ["resumed", "ledger_back"].includes(message.kind);
  if (["paused", "resumed", "cancelled", "ledger_away", "ledger_back"].includes(message.kind)) toast(text, calm ? "info" : "warn");
}

/** Say it once in the table's live region (timer starts, your turn, results). */
function announce(text) {
  if (v?.live && text && v.live.textContent !== text) v.live.textContent = text;
}

// ---- drawing -------------------------------------------------------------------------------
function draw() {
  if (!root) return;
  if (v.error && !v.state) {
    v.body.replaceChildren(h("p.error.panel", { role: "alert" }, errorText(v.error), " ", h("a", { href: "#/lobby" }, t("nav.lobby"))));
    return;
  }
  if (!v.state || !v.rules) return;
  const drawn = `${v.version}|${currentLanguage()}|${session.player?.balance}`;
  if (drawn === v.drawn) return;
  v.drawn = drawn;
  setVocabulary(v.rules.title.vocabulary);
  const focused = document.activeElement?.id;
  // One screen: the header, the felt (scaled to fit what is left), the dock and the panels'
  // tabs; a panel opens beside the felt on wide screens and as a drawer elsewhere.
  v.body.replaceChildren(
    header(),
    recentStrip() ?? "",
    h("div.table-layout", {},
      h("section.felt", { "aria-label": t("table.felt"), dataset: { roundId: v.roundId ?? "", phase: pub().phase } },
        h("div.felt-fit", {},
          dealerZone(),
          h("p.felt-arc", { "aria-hidden": "true" }, feltText()),
          spotZones(),
        ),
        insuranceBanner(),
        pub().paused ? h("div.paused-overlay", { role: "status" }, t("table.paused")) : null,
      ),
      h("section.dock#dock", { "aria-label": t("table.controls") }, dock()),
      sidePanel(),
    ),
    helpPanel() ?? "",
  );
  v.standing = false;
  announce(statusLine());
  if (focused) document.getElementById(focused)?.focus();
  drawTimer();
  fitFelt();
}
