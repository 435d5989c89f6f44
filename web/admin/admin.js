// The operator console: the floor, pause / resume / cancel, returns per title, the ledger check,
// player protection (protection.js).
// The admin token is typed in and kept in sessionStorage (this tab only), never in a URL.

import { refreshProtection, wireProtectionForm } from "./protection.js";

const TOKEN_KEY = "boundless.admin_token";
const TABLES_EVERY_MS = 2000;
const FIGURES_EVERY_MS = 10000;
const MINOR_DIGITS = 2;

const $ = (selector) => document.querySelector(selector);
let tablesTimer = null;
let figuresTimer = null;
let figuresAt = null; // when the figures shown were read
let figuresInFlight = false;

class ApiError extends Error {
  constructor(status, code, detail) {
    super(`${code}: ${detail}`);
    this.status = status;
    this.code = code;
  }
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

async function api(method, path, body) {
  const headers = { Authorization: `Bearer ${token()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`/api/v1/admin/${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const code = data && data.error ? data.error : `http_${response.status}`;
    const detail = data && data.detail ? data.detail : response.statusText;
    throw new ApiError(response.status, code, detail);
  }
  return data;
}

function money(amount) {
  return new Intl.NumberFormat("en", {
    minimumFractionDigits: MINOR_DIGITS,
    maximumFractionDigits: MINOR_DIGITS,
  }).format(amount / 10 ** MINOR_DIGITS);
}

function percent(value) {
  return value === null || value === undefined ? "–" : `${(value * 100).toFixed(3)}%`;
}

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  row.append(td);
  return td;
}

function say(text, failed = false) {
  const notice = $("#notice");
  notice.textContent = text;
  notice.classList.toggle("failed", failed);
  notice.hidden = false;
}

// ---- signing in and out -------------------------------------------------------------------
function showSignIn(message) {
  clearInterval(tablesTimer);
  clearInterval(figuresTimer);
  $("#console").hidden = true;
  $("#sign-out").hidden = true;
  $("#sign-in").hidden = false;
  const error = $("#sign-in-error");
  error.textContent = message || "";
  error.hidden = !message;
}

async function showConsole() {
  try {
    await refreshTables();
  } catch (error) {
    // Whatever failed (a refusal, no server, a token fetch cannot send), say it here: the
    // console's own notice is hidden until signed in.
    sessionStorage.removeItem(TOKEN_KEY);
    const refused = error instanceof ApiError && (error.status === 401 || error.status === 403);
    showSignIn(
      refused
        ? `The server refused the token (${error.message}).`
        : `Could not sign in: ${error.message}`,
    );
    return;
  }
  $("#sign-in").hidden = true;
  $("#console").hidden = false;
  $("#sign-out").hidden = false;
  refreshFigures();
  tablesTimer = setInterval(() => refreshTables().catch(handleFailure), TABLES_EVERY_MS);
  figuresTimer = setInterval(refreshFigures, FIGURES_EVERY_MS);
}

function handleFailure(error) {
  if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
    sessionStorage.removeItem(TOKEN_KEY);
    showSignIn(`Signed out: ${error.message}`);
    return;
  }
  say(`Could not refresh: ${error.message}`, true);
}

// ---- the floor ----------------------------------------------------------------------------
async function refreshTables() {
  const rows = await api("GET", "tables");
  const body = $("#tables tbody");
  body.replaceChildren(...rows.map(tableRow));
  refreshProtection(api); // its own status line: the floor lives in memory, this in the database
}

function tableRow(table) {
  const row = document.createElement("tr");
  row.dataset.tableId = table.table_id;
  row.dataset.phase = table.phase || "";
  row.dataset.roundId = table.round_id || "";
  row.dataset.players = String(table.players);
  row.dataset.paused = String(table.paused);
  cell(row, table.private ? `${table.table_id} (private)` : table.table_id);
  cell(row, table.title);
  cell(row, table.phase || "–");
  cell(row, table.round_id || `after ${table.round_no}`);
  cell(row, String(table.players), "number");
  cell(row, String(table.sockets), "number");
  cell(row, String(table.watchers), "number");
  const state = cell(row, table.paused ? `paused: ${table.pause_reason}` : "running");
  state.className = table.paused ? "paused state" : "state";
  const actions = cell(row, "");
  const hasBets = table.players > 0 && !["settled", "cancelled"].includes(table.phase);
  actions.append(
    button(table.paused ? "Resume" : "Pause", table.paused ? "resume" : "pause", table),
    button("Cancel round", "cancel", table, !hasBets),
  );
  return row;
}

function button(label, action, table, disabled = false) {
  const control = document.createElement("button");
  control.type = "button";
  control.textContent = label;
  control.dataset.action = action;
  control.disabled = disabled;
  if (action === "cancel") control.className = "danger";
  control.addEventListener("click", () => act(action, table));
  return control;
}

async function act(action, table) {
  const reason = $("#reason").value.trim();
  if (!reason) {
    say("Give a reason first: it is shown to the players and kept with the round.", true);
    return;
  }
  if (action === "cancel" && !confirm(`Cancel round ${table.round_id} and refund every stake?`)) {
    return;
  }
  try {
    // A cancel names the round confirmed: if the table has moved on, nothing is cancelled.
    const body = action === "cancel" ? { reason, round_id: table.round_id } : { reason };
    const answer = await api("POST", `tables/${encodeURIComponent(table.table_id)}/${action}`, body);
    if (action === "cancel") {
      const total = answer.refunds.reduce((sum, line) => sum + line.amount, 0);
      say(
        `Cancelled ${answer.round_id} (${answer.reason}): refunded ${money(total)} to ` +
          `${answer.refunds.length} player(s).`,
      );
      const notice = $("#notice");
      notice.dataset.refunded = String(total);
      notice.dataset.roundId = answer.round_id;
    } else {
      say(`${action === "pause" ? "Paused" : "Resumed"} ${table.table_id}: ${reason}.`);
    }
  } catch (error) {
    say(`${action} ${table.table_id} refused: ${error.message}`, true);
  }
  await refreshTables().catch(handleFailure);
  refreshFigures();
}

// ---- returns and the ledger check ---------------------------------------------------------
async function refreshFigures() {
  // One read at a time: each reads the whole ledger, and may take longer than the interval.
  if (figuresInFlight) return;
  figuresInFlight = true;
  try {
    await readFigures();
  } finally {
    figuresInFlight = false;
  }
}

async function readFigures() {
  const status = $("#returns-status");
  // A retry after a failure keeps the failure's line until it succeeds: "computing" would hide
  // that the figures could not be read.
  if (!$("#returns tbody").children.length && !status.classList.contains("bad")) {
    status.textContent = "Computing the exact figures…";
  }
  try {
    const [returns, check, calls] = await Promise.all([
      api("GET", "returns"),
      api("GET", "ledger-check"),
      api("GET", "wallet-calls"),
    ]);
    showWalletCalls(calls);
    $("#returns tbody").replaceChildren(...returns.map(returnRow));
    status.textContent = returns.length ? "" : "No settled round yet.";
    status.classList.remove("bad");
    figuresAt = new Date();
    showCheck(check);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      handleFailure(error); // signs out
      return;
    }
    // Said in the figures' own lines, so the notice keeps what the operator's last action got.
    // Never leave an old verdict showing as if current (the database may be away).
    const since = figuresAt ? ` The figures above are from ${figuresAt.toLocaleTimeString()}.` : "";
    status.textContent = `Could not refresh the figures: ${error.message}.${since}`;
    status.classList.add("bad");
    const verdict = $("#ledger-verdict");
    verdict.textContent = `Not checked: ${error.message}`;
    verdict.className = "bad";
    verdict.dataset.ok = "unknown";
    $("#ledger-summary").textContent = "";
  }
}

function returnRow(title) {
  const row = document.createElement("tr");
  row.dataset.title = title.title;
  row.dataset.cancelledRounds = String(title.cancelled_rounds);
  cell(row, title.title);
  cell(row, String(title.rounds), "number");
  cell(row, String(title.cancelled_rounds), "number cancelled");
  cell(row, money(title.staked), "number");
  cell(row, money(title.paid), "number");
  cell(row, money(title.house_result), `number ${title.house_result >= 0 ? "good" : "bad"}`);
  cell(row, percent(title.realised_return), "number");
  cell(row, percent(title.exact_return), "number");
  cell(
    row,
    title.band_low === null ? "–" : `${percent(title.band_low)} … ${percent(title.band_high)}`,
  );
  const verdict = title.within_band === null ? "" : title.within_band ? "within" : "OUTSIDE";
  cell(row, verdict, title.within_band === false ? "bad" : "good");
  return row;
}

function showCheck(check) {
  const verdict = $("#ledger-verdict");
  verdict.textContent = check.ok
    ? "The books balance: no problems."
    : `${check.problems.length} problem(s) in the books.`;
  verdict.className = check.ok ? "good" : "bad";
  verdict.dataset.ok = String(check.ok);
  $("#ledger-summary").textContent = check.summary;
}

function showWalletCalls(calls) {
  const verdict = $("#wallet-verdict");
  verdict.textContent = calls.pending_count
    ? `Wallet ${calls.wallet}: ${calls.pending_count} credit(s) or rollback(s) pending, sent again at each pass.`
    : `Wallet ${calls.wallet}: nothing pending.`;
  verdict.className = calls.pending_count ? "bad" : "good";
  verdict.dataset.pending = String(calls.pending_count);
  $("#wallet-pending").textContent = calls.pending
    .map((c) => `${c.kind} ${c.transaction_id} ${c.player_id} ${c.round_id} ${money(c.amount)} ${c.currency} tries ${c.attempts}: ${c.last_error || ""}`)
    .join("\n");
}

// ---- start ----------------------------------------------------------------------------------
$("#sign-in").addEventListener("submit", (event) => {
  event.preventDefault();
  const typed = $("#token").value.trim();
  if (!typed) return;
  // An HTTP header carries Latin-1 only: fetch would throw on anything else.
  if (/[^\x20-\x7e\xa0-\xff]/.test(typed)) {
    showSignIn("That is not an admin token: it holds characters no token can have.");
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, typed);
  $("#token").value = "";
  showConsole().catch(handleFailure);
});
$("#sign-out").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  showSignIn("Signed out.");
});
$("#refresh").addEventListener("click", () => {
  refreshTables().catch(handleFailure);
  refreshFigures();
});

wireProtectionForm(api, say);

if (token()) showConsole().catch(handleFailure);
else showSignIn();
