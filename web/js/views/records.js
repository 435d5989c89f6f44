// Play record: the player's rounds, newest first, paged with ?before=<round_id>.
import { api, failureOf, listOf } from "../api.js";
import { dateTime, h, money, signedMoney } from "../format.js";
import { t } from "../i18n.js";
import { errorText, session } from "../session.js";
import { titleName } from "./rule_text.js";

const PAGE = 20;

let root = null;
let rows = [];
let more = false;
let loading = false;
let failure = null;

export function mount(element) {
  root = element;
  rows = [];
  more = false;
  failure = null;
  render();
  if (session.player) load();
}

export function unmount() {
  root = null;
}

async function load() {
  loading = true;
  render();
  failure = await failureOf(async () => {
    const before = rows.length ? rows[rows.length - 1].round_id : null;
    const answer = await api.records(PAGE, before);
    const page = listOf(answer);
    rows = rows.concat(page);
    if (answer && !Array.isArray(answer) && "next_before" in answer) more = answer.next_before !== null;
    else if (answer && !Array.isArray(answer) && "has_more" in answer) more = Boolean(answer.has_more);
    else more = page.length === PAGE;
  });
  loading = false;
  render();
}

export function render() {
  if (!root) return;
  const heading = h("h1.page-title", {}, t("records.title"));
  if (!session.player) {
    root.replaceChildren(heading, h("p.panel", {}, t("records.sign_up_first"), " ", h("a", { href: "#/lobby" }, t("nav.lobby"))));
    return;
  }
  const body = [];
  if (failure) body.push(h("p.error", { role: "alert" }, errorText(failure)));
  if (!rows.length && !loading && !failure) body.push(h("p.muted.panel", {}, t("records.empty")));
  if (rows.length) {
    body.push(
      h("div.table-scroll", {},
        h("table.records-table", {},
          h("caption.sr-only", {}, t("records.caption")),
          h("thead", {}, h("tr", {},
            [t("records.when"), t("records.game"), t("records.round"), t("records.staked"), t("records.paid"), t("records.net"), t("records.status")]
              .map((label) => h("th", { scope: "col" }, label)))),
          h("tbody", {}, rows.map(row)),
        ),
      ),
    );
  }
  if (more) {
    body.push(h("button.btn.btn-ghost#records-more", { type: "button", disabled: loading, onclick: load }, t("records.more")));
  }
  if (loading) body.push(h("p.loading", {}, t("app.loading")));
  root.replaceChildren(heading, h("p.muted", {}, t("records.intro")), ...body);
}

function row(item) {
  const net = item.net ?? (item.paid ?? 0) - (item.staked ?? 0);
  const link = `#/records/${encodeURIComponent(item.round_id)}`;
  // data-label names each cell where a phone shows the row as a card.
  const cell = (spec, label, content) => h(spec, { dataset: { label } }, content);
  return h("tr.record-row", { dataset: { roundId: item.round_id } },
    cell("td.record-when", t("records.when"), h("a.record-link", { href: link }, dateTime(item.settled_at ?? item.started_at))),
    cell("td", t("records.game"), titleName(item.title, item.title)),
    cell("td.num", t("records.round"), item.round_no ?? "–"),
    cell("td.num", t("records.staked"), money(item.staked)),
    cell("td.num", t("records.paid"), money(item.paid)),
    cell(`td.num${net > 0 ? ".good" : net < 0 ? ".bad" : ""}`, t("records.net"), signedMoney(net)),
    cell("td", t("records.status"), t(`record_status.${item.status || "settled"}`)),
  );
}
