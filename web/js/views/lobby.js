// Lobby: sign-up, the open tables (title, players, phase) and private tables on demand.
import { api, failureOf, listOf } from "../api.js";
import { h, money } from "../format.js";
import { setVocabulary, t } from "../i18n.js";
import { errorText, session } from "../session.js";
import { signUpCard, welcomeCard } from "./account.js";
import { sideBetGroups, sideBetName, titleName } from "./rule_text.js";

const REFRESH_MS = 3000;

let root = null;
let timer = null;
let tables = [];
let titles = [];
let ruleSets = new Map();
let unsubscribe = null;
let loadError = null;

export function mount(element) {
  root = element;
  // The balance changes often: redraw only the account card, never the forms.
  unsubscribe = session.onChange(() => renderAccount());
  render();
  refresh();
  timer = setInterval(refresh, REFRESH_MS);
}

export { render };

export function unmount() {
  clearInterval(timer);
  if (unsubscribe) unsubscribe();
  root = null;
}

async function refresh() {
  const firstLoad = !titles.length;
  loadError = await failureOf(async () => {
    const [tableList, titleList] = await Promise.all([api.tables(), titles.length ? titles : api.titles()]);
    tables = listOf(tableList);
    titles = listOf(titleList);
    for (const title of titles) {
      if (!ruleSets.has(title.key)) ruleSets.set(title.key, await api.title(title.key));
    }
  });
  // Only the table list changes every few seconds; forms keep what the player typed.
  renderTables();
  // The private form follows the player's own tables (open one: the form leads to it).
  const own = ownTables().map((table) => table.table_id).join(" ");
  if (firstLoad || own !== shownOwn) renderPrivate();
  shownOwn = own;
}

let shownOwn = "";

/** The private tables in the list: the server lists only the viewer's own. */
function ownTables() {
  return tables.filter((table) => table.private);
}

function renderPrivate() {
  const slot = root?.querySelector("#private-slot");
  if (slot) slot.replaceChildren(...[privateSection()].filter(Boolean));
}

let accountShown = null; // who the account card shows: null, or the signed-in player's id
const accountState = { confirming: false };

function accountCard() {
  const rerender = () => root?.querySelector("#account-slot")?.replaceChildren(accountCard());
  return session.player ? welcomeCard(rerender, accountState) : signUpCard();
}

function renderAccount() {
  const slot = root?.querySelector("#account-slot");
  if (!slot) return;
  const who = session.player?.player_id ?? null;
  if (who !== accountShown) {
    // Signed in or out: the card, the join buttons and the private form change.
    accountShown = who;
    slot.replaceChildren(accountCard());
    renderTables(true);
    const open = root.querySelector("#private-open");
    if (open) open.disabled = !session.player;
    return;
  }
  const balance = root.querySelector("#lobby-balance");
  if (balance && session.player) balance.textContent = money(session.player.balance);
}

let tablesShown = null; // what the table list shows now, to redraw only on change

function renderTables(force = false) {
  const slot = root?.querySelector("#table-slot");
  if (!slot) return;
  const shown = JSON.stringify([tables, loadError?.code, ruleSets.size]);
  if (!force && shown === tablesShown && slot.childElementCount) return;
  tablesShown = shown;
  slot.replaceChildren(
    ...[loadError ? h("p.error", { role: "alert" }, errorText(loadError)) : null, tableList()].filter(Boolean),
  );
}

function render() {
  if (!root) return;
  const focusedId = document.activeElement?.id;
  const typedName = root.querySelector("#signup-name")?.value;
  root.replaceChildren(...[
    h("h1.page-title", {}, t("lobby.title")),
    h("div#account-slot", {}, accountCard()),
    h("section.lobby-section", { "aria-labelledby": "tables-heading" },
      h("h2#tables-heading", {}, t("lobby.tables")),
      h("div#table-slot"),
    ),
    h("div#private-slot"),
  ].filter(Boolean));
  accountShown = session.player?.player_id ?? null;
  renderTables(true);
  renderPrivate();
  const nameInput = root.querySelector("#signup-name");
  if (nameInput && typedName) nameInput.value = typedName;
  if (focusedId) document.getElementById(focusedId)?.focus();
}

function tableList() {
  if (!tables.length) return h("p.muted", {}, loadError ? "" : t("lobby.no_tables"));
  return h("ul.table-list", {},
    tables.map((table) => {
      const rules = ruleSets.get(table.title);
      const spots = rules?.table?.spots ?? 1;
      const vocabulary = titles.find((title) => title.key === table.title)?.vocabulary;
      return h("li.table-card", { dataset: { tableId: table.table_id, title: table.title } },
        h("div.table-card-felt", { "aria-hidden": "true" },
          Array.from({ length: spots }, () => h("span.mini-spot")),
        ),
        h("div.table-card-body", {},
          // A private table's own name when its owner gave one, else the title's translated name.
          h("h3", {}, rules && table.name !== rules.title.name ? table.name : titleName(table.title, table.name)),
          h("p.table-meta", {},
            h("span.table-players", {}, t("lobby.players", { count: table.players ?? 0 })),
            h("span.table-phase", {}, t(`phase.${table.paused ? "paused" : table.phase || "waiting"}`, {}, vocabulary)),
            table.round_no ? h("span", {}, t("lobby.round_no", { n: table.round_no })) : null,
            table.private ? h("span.badge", {}, t("lobby.private")) : null,
          ),
          rules ? limitsLine(rules, vocabulary, table.side_bets) : null,
        ),
        h("div.table-card-actions", {},
          h("a.btn.btn-ghost", { href: `#/rules/${encodeURIComponent(table.title)}` }, t("lobby.rules")),
          session.player
            ? h("a.btn.btn-gold.join-table", { href: `#/table/${encodeURIComponent(table.table_id)}` }, t("lobby.join"))
            : h("button.btn", { type: "button", disabled: true, title: t("lobby.sign_up_first") }, t("lobby.join")),
        ),
      );
    }),
  );
}

/** The table's limits: main bet minimum to maximum, and the range of the side options it
 * offers (a private table offers the ones its owner chose; ``offered`` null: all of them). */
function limitsLine(rules, vocabulary, offered = null) {
  const limits = rules.limits;
  const sides = (rules.side_bets || []).filter((bet) => !Array.isArray(offered) || offered.includes(bet.key));
  return h("dl.table-limits", {},
    h("div", {}, h("dt", {}, t("lobby.limits_main", {}, vocabulary)), h("dd.table-limit-main", {}, `${money(limits.min_main_amount)} – ${money(limits.max_main_amount)}`)),
    sides.length
      ? h("div", {},
          h("dt", {}, t("lobby.limits_side", {}, vocabulary)),
          h("dd.table-limit-side", {}, `${money(Math.min(...sides.map((bet) => bet.min_amount)))} – ${money(Math.max(...sides.map((bet) => bet.max_amount)))}`),
        )
      : null,
  );
}

let privateChoice = null; // the private title picked in the form

function privateSection() {
  const privateTitles = titles.filter((title) => (title.shared ?? ruleSets.get(title.key)?.table?.shared) === false);
  if (!privateTitles.length) return null;
  if (!privateTitles.some((title) => title.key === privateChoice)) privateChoice = privateTitles[0].key;
  const rules = ruleSets.get(privateChoice);
  if (!rules) return h("p.loading", {}, t("app.loading"));
  // The form speaks the chosen game's own words (its side bets, its dealer).
  setVocabulary(rules.title.vocabulary);
  try {
    return h("section.lobby-section", { "aria-labelledby": "private-heading" },
      h("h2#private-heading", {}, t("lobby.private_tables")),
      privateForm(privateTitles, rules),
    );
  } finally {
    setVocabulary(null);
  }
}

function privateForm(privateTitles, rules) {
  const offer = rules.side_bet_offer || { mode: "all", choose_count: 0 };
  const choosing = offer.mode === "player_chooses";
  const groups = sideBetGroups(rules);
  const boxes = [];
  const mine = ownTables().find((table) => table.title === privateChoice);
  const message = h("p.form-message", { role: "alert" });
  const select = h("select#private-title", {
    onchange: () => {
      privateChoice = select.value;
      renderPrivate();
    },
  }, privateTitles.map((title) =>
    h("option", { value: title.key, selected: title.key === privateChoice }, titleName(title.key, title.name))));
  const limitBoxes = () => {
    const count = boxes.filter((box) => box.checked).length;
    for (const box of boxes) box.disabled = !box.checked && count >= offer.choose_count;
  };
  return h("form.panel.private-card", {
    onsubmit: async (event) => {
      event.preventDefault();
      const chosen = boxes.filter((box) => box.checked).map((box) => box.value);
      if (choosing && chosen.length !== offer.choose_count) {
        message.textContent = t("private.choose_exactly", { n: offer.choose_count });
        return;
      }
      try {
        const table = await api.openPrivateTable(privateChoice, chosen);
        location.hash = `#/table/${encodeURIComponent(table.table_id)}`;
      } catch (error) {
        message.textContent = errorText(error);
      }
    },
  },
    h("p.muted", {}, t("lobby.private_intro"), " ", t("private.seats", { n: rules.table.spots })),
    h("label.field", { for: "private-title" }, t("private.game")),
    select,
    choosing
      ? h("fieldset.side-choice", {},
          h("legend", {}, t("private.choose_side_bets", { n: offer.choose_count })),
          Object.entries(groups).map(([group, keys]) => {
            const box = h("input", { type: "checkbox", name: "side_group", value: group, onchange: limitBoxes });
            boxes.push(box);
            return h("label.check", {}, box, h("span", {}, sideBetName(rules, keys[0])));
          }),
        )
      : null,
    h("div.form-actions", {},
      h("a.btn.btn-ghost", { href: `#/rules/${encodeURIComponent(privateChoice)}` }, t("lobby.rules")),
      // A table of this game already open: go to it rather than open another beside its card.
      mine
        ? h("a.btn.btn-gold#private-go", { href: `#/table/${encodeURIComponent(mine.table_id)}` }, t("private.go_to_mine"))
        : h("button.btn.btn-gold#private-open", { type: "submit", disabled: !session.player }, t("private.open")),
    ),
    message,
  );
}
