// The session panel (always shown once signed in: elapsed time and net position, RTS 13C / 2E)
// and the reality-check dialog. The figures are the server's: the welcome message's session,
// each reality_check notice, and GET /api/v1/me/session after every settled round. Also the
// notice that the session ended (session_ended).
import { api } from "./api.js";
import { signedMoney, money } from "./format.js";
import { t } from "./i18n.js";
import { connect, disconnect, on, send, serverNow } from "./socket.js";
import { errorText, toast } from "./session.js";

const figures = { started_ms: null, net: 0, wagered: 0 };
let check = null; // the reality_check waiting for an answer

function clock(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = String(Math.floor((seconds % 3600) / 60)).padStart(2, "0");
  return `${hours}:${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}

function update(next) {
  if (!next) return;
  Object.assign(figures, next);
  render();
}

export function render() {
  const panel = document.getElementById("session-panel");
  panel.hidden = figures.started_ms === null;
  if (panel.hidden) return;
  document.getElementById("session-elapsed").textContent = clock(serverNow() - figures.started_ms);
  const net = document.getElementById("session-net");
  net.textContent = signedMoney(figures.net);
  net.dataset.sign = figures.net < 0 ? "minus" : figures.net > 0 ? "plus" : "zero";
  if (check) renderDialog();
}

function renderDialog() {
  document.getElementById("reality-text").textContent = t("reality.body", {
    elapsed: clock(check.elapsed_ms),
    wagered: money(check.wagered),
    net: signedMoney(check.net),
  });
}

function showCheck(message) {
  check = message;
  update(message);
  renderDialog();
  const dialog = document.getElementById("reality-dialog");
  if (!dialog.open) dialog.showModal();
}

async function answer(choice) {
  const dialog = document.getElementById("reality-dialog");
  try {
    const ack = await send("reality_check", { choice });
    check = null;
    dialog.close();
    update(ack.session);
    if (choice === "leave") {
      figures.started_ms = null;
      render();
      location.hash = "#/lobby";
    }
  } catch (error) {
    toast(errorText(error), "bad");
  }
}

// The server ended the session (the player's session-time limit, after the round in play):
// the socket closes, and it stays closed until the player asks for a new session.
function showEnded(message) {
  disconnect();
  check = null;
  document.getElementById("reality-dialog").close();
  forgetSession();
  document.getElementById("session-ended-text").textContent = t(`session_ended.${message.reason}`, {
    elapsed: clock(message.elapsed_ms),
    wagered: money(message.wagered),
    net: signedMoney(message.net),
  });
  const dialog = document.getElementById("session-ended-dialog");
  if (!dialog.open) dialog.showModal();
}

function startAgain() {
  document.getElementById("session-ended-dialog").close();
  location.hash = "#/lobby";
  connect().catch((error) => toast(errorText(error), "bad"));
}

async function refresh() {
  try {
    update(await api.sessionFigures());
  } catch {
    // a refresh that fails leaves the last figures shown; the next round tries again
  }
}

export function initProtection() {
  on("welcome", (message) => update(message.session));
  on("reality_check", showCheck);
  on("settled", () => refresh());
  on("session_ended", showEnded);
  document.getElementById("session-ended-again").addEventListener("click", startAgain);
  document.getElementById("session-ended-dialog").addEventListener("cancel", (event) => event.preventDefault());
  document.getElementById("reality-continue").addEventListener("click", () => answer("continue"));
  document.getElementById("reality-leave").addEventListener("click", () => answer("leave"));
  // The dialog waits for an answer: Escape does not dismiss it.
  document.getElementById("reality-dialog").addEventListener("cancel", (event) => event.preventDefault());
  setInterval(render, 1000);
}

export function forgetSession() {
  figures.started_ms = null;
  render();
}
