// The signed-in player, the wallet in the top bar, toasts and error texts, shared by the views.
import { api, setToken, token } from "./api.js";
import { money } from "./format.js";
import { t } from "./i18n.js";
import { connect, disconnect } from "./socket.js";

/** Refusals that keep a player out for a while (the account itself stays theirs). */
const BLOCKS = ["timed_out", "self_excluded"];

export const session = {
  player: null, // {player_id, display_name, balance}
  listeners: new Set(),
  set(player) {
    this.player = player;
    for (const listener of this.listeners) listener(player);
    renderWallet();
  },
  setBalance(balance) {
    if (!this.player || typeof balance !== "number") return;
    this.player = { ...this.player, balance };
    for (const listener of this.listeners) listener(this.player);
    renderWallet();
  },
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  },
};

export function renderWallet() {
  const wallet = document.getElementById("wallet");
  wallet.hidden = !session.player;
  if (!session.player) return;
  document.getElementById("wallet-name").textContent = session.player.display_name;
  document.getElementById("wallet-balance").textContent = money(session.player.balance);
}

export function toast(text, kind = "info") {
  const box = document.getElementById("toasts");
  const item = document.createElement("div");
  item.className = `toast toast-${kind}`;
  item.textContent = text;
  box.append(item);
  setTimeout(() => item.classList.add("toast-out"), 3600);
  setTimeout(() => item.remove(), 4200);
}

/** A refusal from the server, in the player's language when we know its code. */
export function errorText(error) {
  const code = error?.code;
  const key = `error.${code}`;
  const known = t(key);
  if (known !== key) return known;
  return t("error.generic", { detail: error?.detail || error?.message || String(code) });
}

export async function signIn(displayName) {
  const answer = await api.signUp(displayName);
  setToken(answer.token);
  session.keyToSave = answer.token; // shown until the player says it is kept
  session.set({
    player_id: answer.player_id,
    display_name: answer.display_name,
    balance: answer.balance,
  });
  connectSocket();
  return answer;
}

/**
 * The account key is the player's token: shown at sign-up and on the profile page, it signs the
 * account in on any browser (the server keeps only its hash, so nobody can show it again).
 */
export function accountKey() {
  return token();
}

/** Sign in on this browser with an account key; a key the server does not know changes nothing. */
export async function signInWithKey(key) {
  const previous = token();
  setToken(key);
  try {
    const player = await api.me();
    disconnect();
    session.set(player);
    connectSocket();
    return player;
  } catch (error) {
    setToken(previous);
    throw error;
  }
}

/** A player the operator launched (``?launch=CODE`` in the URL): the code is traded once for a
 * token, then taken out of the address bar so a reload or a shared link cannot reuse it. */
export async function launchFromUrl() {
  const params = new URLSearchParams(window.location.search);
  const code = params.get("launch");
  if (!code) return;
  params.delete("launch");
  const rest = params.toString();
  window.history.replaceState(null, "", `${window.location.pathname}${rest ? `?${rest}` : ""}${window.location.hash}`);
  const answer = await api.launch(code);
  setToken(answer.token);
}

export function signOut() {
  setToken(null);
  disconnect();
  session.set(null);
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

export function connectSocket() {
  connect()
    .then((welcome) => {
      if (welcome.player) session.set({ ...session.player, ...welcome.player });
    })
    .catch((error) => {
      if (error.code === "unauthorized") signOut();
      else if (BLOCKS.includes(error.code)) toast(errorText(error), "bad");
    });
}

export async function restoreSession() {
  if (!token()) return;
  try {
    session.set(await api.me());
    connectSocket();
  } catch (error) {
    // A time-out or self-exclusion keeps the account key: the account comes back when it ends.
    if (BLOCKS.includes(error.code)) toast(errorText(error), "bad");
    else if (error.status === 401 || error.status === 403) setToken(null);
  }
}

