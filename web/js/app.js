// The page shell: language, session, wallet, toasts and a hash router over the views.
import {
  errorText,
  launchFromUrl,
  renderWallet,
  restoreSession,
  session,
  toast,
} from "./session.js";
import { initI18n, onLanguageChange, setLanguage, setVocabulary, t, currentLanguage } from "./i18n.js";
import { on, onStatus } from "./socket.js";
import { initProtection, render as renderSessionPanel } from "./protection.js";
import * as lobby from "./views/lobby.js";
import * as profile from "./views/profile.js";
import * as records from "./views/records.js";
import * as recordDetail from "./views/record_detail.js";
import * as rules from "./views/rules.js";
import * as table from "./views/table.js";

const routes = [
  { pattern: /^#\/table\/([^/]+)$/, view: table, nav: "lobby" },
  { pattern: /^#\/records\/([^/]+)$/, view: recordDetail, nav: "records" },
  { pattern: /^#\/records$/, view: records, nav: "records" },
  { pattern: /^#\/rules\/([^/]+)$/, view: rules, nav: "rules" },
  { pattern: /^#\/rules$/, view: rules, nav: "rules" },
  { pattern: /^#\/lobby$/, view: lobby, nav: "lobby" },
  { pattern: /^#\/profile$/, view: profile, nav: "profile" },
];

let current = null; // {view, args}

function route() {
  const hash = location.hash || "#/lobby";
  const match = routes.map((r) => ({ r, m: hash.match(r.pattern) })).find((x) => x.m);
  if (!match) {
    location.replace("#/lobby");
    return;
  }
  if (current?.view?.unmount) current.view.unmount();
  setVocabulary(null);
  const root = document.getElementById("main");
  root.replaceChildren();
  root.className = `view-${match.r.nav}`;
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (link.dataset.nav === match.r.nav) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  current = { view: match.r.view, args: match.m.slice(1) };
  match.r.view.mount(root, ...current.args);
}

async function boot() {
  await initI18n();
  const select = document.getElementById("lang-select");
  select.value = currentLanguage();
  select.addEventListener("change", () => setLanguage(select.value));
  onLanguageChange((lang) => {
    select.value = lang;
    renderWallet();
    renderSessionPanel();
    if (current?.view?.render) current.view.render();
  });
  onStatus((status) => {
    const banner = document.getElementById("connection");
    banner.hidden = status === "online";
    banner.textContent = status === "online" ? "" : t("connection.offline");
  });
  on("welcome", (message) => message.player && session.setBalance(message.player.balance));
  initProtection();
  // A round's result moves the balance when the table shows it (not with an earlier "you").
  on("you", (message) => table.holdsBalance(message) || session.setBalance(message.balance));
  // The table view sets the balance itself once the round's last card has landed.
  on("settled", (message) => table.holdsResult(message) || session.setBalance(message.balance));
  on("ack", (message) => session.setBalance(message.balance));
  await launchFromUrl().catch((error) => toast(errorText(error), "error"));
  await restoreSession();
  window.addEventListener("hashchange", route);
  route();
  document.body.dataset.ready = "true";
}

boot().catch((error) => {
  document.getElementById("main").textContent = String(error);
});
