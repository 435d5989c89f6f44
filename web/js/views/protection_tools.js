// The profile page's protection tools: limits (with changes pending their cooling-off), the
// reality-check interval, a time-out, self-exclusion, and the history of every change. Each
// form sends the server's REST forms (docs/protocol.md); the server decides and answers.
import { api } from "../api.js";
import { dateTime, h, money, MINOR_DIGITS } from "../format.js";
import { t } from "../i18n.js";
import { errorText, session } from "../session.js";
import { disconnect } from "../socket.js";

/** A time-out or self-exclusion began: this browser stops playing, and keeps the account key. */
function blocked() {
  disconnect();
  session.set(null);
}

const KINDS = ["loss", "wager"];
const WINDOWS = ["day", "week", "month"];
const data = { limits: null, protection: null, error: null, message: "" };

export async function loadTools(render) {
  try {
    [data.limits, data.protection] = await Promise.all([api.limits(), api.protection()]);
    data.error = null;
  } catch (error) {
    data.error = error;
  }
  render();
}

function toMinor(text) {
  const value = String(text).trim();
  if (!value) return null;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) return NaN;
  return Math.round(number * 10 ** MINOR_DIGITS);
}

function toCoins(amount) {
  return amount === null || amount === undefined ? "" : String(amount / 10 ** MINOR_DIGITS);
}

function limitName(field) {
  if (field === "session_minutes") return t("protect.session_minutes");
  const [kind, window] = field.split(".");
  return `${t(`protect.${kind}`)} · ${t(`protect.${window}`)}`;
}

function shown(field, amount) {
  if (amount === null) return t("protect.no_limit");
  return field === "session_minutes" ? t("protect.minutes_value", { minutes: amount }) : money(amount);
}

async function act(work, render, done) {
  try {
    await work();
    data.message = done;
  } catch (error) {
    data.message = errorText(error);
  }
  await loadTools(render);
}

function limitsForm(render) {
  const limits = data.limits;
  const inputs = {};
  const rows = [];
  for (const kind of KINDS) {
    for (const window of WINDOWS) {
      const id = `limit-${kind}-${window}`;
      inputs[`${kind}.${window}`] = h(`input#${id}`, {
        type: "number", min: "0", step: "0.01", inputmode: "decimal",
        placeholder: t("protect.no_limit"), value: toCoins(limits[kind][window]),
      });
      rows.push(h("label.limit-field", { for: id }, limitName(`${kind}.${window}`), inputs[`${kind}.${window}`]));
    }
  }
  inputs.session_minutes = h("input#limit-session", {
    type: "number", min: "1", step: "1", placeholder: t("protect.no_limit"),
    value: limits.session_minutes ?? "",
  });
  rows.push(h("label.limit-field", { for: "limit-session" }, t("protect.session_minutes"), inputs.session_minutes));
  const submit = async (event) => {
    event.preventDefault();
    const body = { loss: {}, wager: {} };
    for (const kind of KINDS) {
      for (const window of WINDOWS) {
        const amount = toMinor(inputs[`${kind}.${window}`].value);
        if (Number.isNaN(amount)) {
          data.message = t("protect.bad_amount");
          render();
          return;
        }
        body[kind][window] = amount;
      }
    }
    const minutes = inputs.session_minutes.value.trim();
    body.session_minutes = minutes ? Number(minutes) : null;
    await act(() => api.setLimits(body), render, t("protect.saved", { hours: limits.cooling_off_hours }));
  };
  const pending = limits.pending.map((change) =>
    h("li", {}, t("protect.pending", {
      limit: limitName(change.limit),
      amount: shown(change.limit, change.amount),
      when: dateTime(change.effective_ms),
    })),
  );
  return h("section.panel#protect-limits", { "aria-labelledby": "protect-limits-heading" },
    h("h2#protect-limits-heading", {}, t("protect.limits")),
    h("p.muted", {}, t("protect.limits_intro", { hours: limits.cooling_off_hours })),
    h("form.limits-form", { onsubmit: submit }, ...rows,
      h("button#limits-save.primary", { type: "submit" }, t("protect.save"))),
    pending.length ? h("ul#limits-pending", {}, ...pending) : null,
  );
}

function numberForm(spec, render) {
  const input = h(`input#${spec.id}`, { type: "number", min: String(spec.min), max: String(spec.max), step: "1", value: spec.value });
  const submit = async (event) => {
    event.preventDefault();
    const value = Number(input.value);
    if (spec.confirm && !window.confirm(spec.confirm)) return;
    await act(() => spec.send(value), render, spec.done);
    if (spec.after) spec.after();
  };
  return h("form.tool-form", { onsubmit: submit },
    h("label", { for: spec.id }, spec.label, input),
    h(`button#${spec.button}`, { type: "submit" }, spec.action));
}

function historyRow(row) {
  const what = row.kind === "limit"
    ? t("protect.history_limit", { limit: limitName(row.field), amount: shown(row.field, row.amount) })
    : t(`protect.history_${row.kind}`, {
      until: row.until_ms ? dateTime(row.until_ms) : "",
      minutes: row.amount ?? "",
      choice: row.field ? t(`reality.${row.field === "leave" ? "leave" : "continue"}`) : "",
    });
  return h("tr", {},
    h("td", {}, dateTime(row.created_ms)),
    h("td", {}, what),
    h("td", {}, t(`protect.actor_${row.actor}`)),
    h("td", {}, dateTime(row.effective_ms)));
}

export function toolsSection(render) {
  if (data.error) return h("section.panel", {}, errorText(data.error));
  if (!data.limits || !data.protection) return h("p.loading", {}, t("app.loading"));
  const profile = data.protection;
  return h("div.protection-tools", {},
    h("h2.page-title", {}, t("protect.heading")),
    h("p.muted#protect-profile", {}, t("protect.profile", { name: profile.name })),
    data.message ? h("p.form-message#protect-message", { role: "status" }, data.message) : null,
    limitsForm(render),
    h("section.panel#protect-reality", {},
      h("h2", {}, t("reality.title")),
      numberForm({
        id: "reality-minutes", button: "reality-save", min: 0, max: profile.reality_check.max_minutes,
        value: data.limits.reality_check_minutes,
        label: t("protect.reality_every", { min: profile.reality_check.min_minutes, max: profile.reality_check.max_minutes }),
        action: t("protect.set"), send: api.setRealityCheck, done: t("protect.reality_saved"),
      }, render)),
    h("section.panel#protect-time-out", {},
      h("h2", {}, t("protect.time_out")),
      numberForm({
        id: "time-out-hours", button: "time-out-start", min: profile.time_out.min_hours, max: profile.time_out.max_hours,
        value: profile.time_out.min_hours,
        label: t("protect.hours", { min: profile.time_out.min_hours, max: profile.time_out.max_hours }),
        action: t("protect.time_out_start"), send: api.timeOut, confirm: t("protect.confirm_block"),
        done: t("protect.time_out_done"), after: blocked,
      }, render)),
    h("section.panel#protect-exclusion", {},
      h("h2", {}, t("protect.exclusion")),
      numberForm({
        id: "exclusion-months", button: "exclusion-start", min: profile.self_exclusion.min_months,
        max: profile.self_exclusion.max_months, value: profile.self_exclusion.min_months,
        label: t("protect.months", { min: profile.self_exclusion.min_months, max: profile.self_exclusion.max_months }),
        action: t("protect.exclusion_start"), send: api.selfExclude, confirm: t("protect.confirm_block"),
        done: t("protect.exclusion_done"), after: blocked,
      }, render)),
    h("section.panel#protect-history", {},
      h("h2", {}, t("protect.history")),
      profile.history.length
        ? h("table#protection-history", {},
          h("thead", {}, h("tr", {}, ...["when", "what", "who", "effective"].map((k) => h("th", {}, t(`protect.col_${k}`))))),
          h("tbody", {}, ...profile.history.map(historyRow)))
        : h("p.muted", {}, t("protect.history_empty"))),
  );
}
