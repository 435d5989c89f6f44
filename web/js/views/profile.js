// The profile page (#/profile): who you are, your balance, your account key, your protection
// tools (limits, reality checks, time-out, self-exclusion, their history), signing out.
import { h, money } from "../format.js";
import { t } from "../i18n.js";
import { session } from "../session.js";
import { keyBox, signOutControl } from "./account.js";
import { loadTools, toolsSection } from "./protection_tools.js";

let root = null;
let unsubscribe = null;
const state = { confirming: false };

export function mount(element) {
  root = element;
  state.confirming = false;
  unsubscribe = session.onChange(() => render());
  render();
  if (session.player) loadTools(render);
}

export function unmount() {
  if (unsubscribe) unsubscribe();
  root = null;
}

export function render() {
  if (!root) return;
  if (!session.player) {
    root.replaceChildren(h("p.panel", {}, t("table.sign_up_first"), " ", h("a", { href: "#/lobby" }, t("nav.lobby"))));
    return;
  }
  const player = session.player;
  root.replaceChildren(
    h("h1.page-title", {}, t("account.profile")),
    h("section.panel.profile-card", {},
      h("dl.detail-summary", {},
        h("div", {}, h("dt", {}, t("signup.name_label")), h("dd#profile-name", {}, player.display_name)),
        h("div", {}, h("dt", {}, t("account.player_id")), h("dd.mono", {}, player.player_id)),
        h("div", {}, h("dt", {}, t("wallet.balance")), h("dd", {}, money(player.balance))),
      ),
    ),
    h("section.panel.key-card", { "aria-labelledby": "profile-key-heading" },
      h("h2#profile-key-heading", {}, t("account.key_heading")),
      h("p", {}, t("account.key_intro")),
      keyBox(true),
    ),
    toolsSection(render),
    h("section.panel", {}, signOutControl(render, state)),
  );
}
