// The table's lobby row (its name, the last rounds' dealer results) and a private table's own
// controls: renaming it and closing it.
import { api } from "../../api.js";
import { h, onTextSubmit } from "../../format.js";
import { t } from "../../i18n.js";
import { errorText, toast } from "../../session.js";
import { changed, pub, v } from "./state.js";

/** The lobby row of this table (name, private), read once when the view mounts. */
export async function loadTableRow() {
  try {
    const rows = await api.tables();
    if (!v) return;
    v.tableRow = (Array.isArray(rows) ? rows : []).find((row) => row.table_id === v.tableId) ?? null;
    // The strip of the last rounds starts with what the server remembers of them.
    const known = new Set(v.recent.map((entry) => entry.roundNo));
    for (const entry of v.tableRow?.recent || []) {
      if (!known.has(entry.round_no)) v.recent.push({ roundNo: entry.round_no, total: entry.total, cards: entry.cards });
    }
    v.recent.sort((a, b) => b.roundNo - a.roundNo);
    changed();
  } catch {
    // The header falls back to the title's name.
  }
}

/** A name the owner gave the table; otherwise the title's name in the page's language. */
export function tableName(fallback) {
  const name = v.tableRow?.name;
  return name && name !== v.rules?.title?.name ? name : fallback;
}

export function privateControls() {
  if (!v.tableRow?.private) return null;
  if (v.renaming) return renameForm();
  if (v.confirmClose) {
    return h("div.confirm-box#close-confirm", { role: "alertdialog", "aria-labelledby": "close-question" },
      h("p#close-question", {}, t("private.close_question")),
      h("div.button-row", {},
        h("button.btn.btn-ghost#close-keep", { type: "button", onclick: () => { v.confirmClose = false; changed(); } }, t("common.cancel")),
        h("button.btn.btn-danger#close-table-confirm", { type: "button", onclick: closeTable }, t("private.close_confirm")),
      ),
    );
  }
  const inPlay = !["betting", "settled", "cancelled"].includes(pub().phase) || Boolean(v.placed);
  return h("div.private-controls", {},
    h("button.btn.btn-ghost.btn-small#rename-table", { type: "button", onclick: () => { v.renaming = true; changed(); } }, t("private.rename")),
    h("button.btn.btn-ghost.btn-small#close-table", {
      type: "button",
      disabled: inPlay,
      title: inPlay ? t("error.table_in_play") : null,
      onclick: () => { v.confirmClose = true; changed(); },
    }, t("private.close")),
  );
}

// The table redraws whenever a message comes, so the typed name and the form's answer live in
// v (not in the elements), or a state message arriving while the owner types would undo it.
function renameForm() {
  const draft = v.renameDraft ?? v.tableRow.name;
  const keep = () => { v.renameDraft = input.value; v.renameCaret = input.selectionStart; };
  const input = h("input#table-name", {
    type: "text",
    maxlength: 40,
    value: draft,
    "aria-label": t("private.name_label"),
    oninput: keep,
    onkeyup: keep,
    onclick: keep,
  });
  const message = h("span.form-message", { role: "alert" }, v.renameError ?? "");
  // Focus comes to the field when the form opens; a redraw after that keeps the caret where it was.
  const opening = v.renameCaret == null;
  queueMicrotask(() => {
    if (opening) input.focus();
    if (document.activeElement !== input) return;
    const caret = v.renameCaret ?? input.value.length;
    input.setSelectionRange(caret, caret);
    v.renameCaret = caret;
  });
  const stop = () => { v.renaming = false; v.renameDraft = null; v.renameCaret = null; v.renameError = null; };
  return h("form.rename-form", {
    onsubmit: onTextSubmit(input, message, t("private.name_blank"), async (name) => {
      try {
        v.tableRow = await api.renameTable(v.tableId, name);
        stop();
      } catch (error) {
        v.renameError = errorText(error);
        message.textContent = v.renameError;
        return;
      }
      changed();
    }),
  },
    input,
    h("button.btn.btn-gold.btn-small#rename-save", { type: "submit" }, t("common.save")),
    h("button.btn.btn-ghost.btn-small", { type: "button", onclick: () => { stop(); changed(); } }, t("common.cancel")),
    message,
  );
}

async function closeTable() {
  try {
    await api.closeTable(v.tableId);
    toast(t("private.closed"), "info");
    location.hash = "#/lobby";
  } catch (error) {
    v.confirmClose = false;
    toast(errorText(error), "bad");
    changed();
  }
}
