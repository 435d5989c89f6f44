// The account cards shared by the lobby and the profile page: sign up, sign in with an account
// key, the key to keep, and signing out (after a warning: without the key it is for good).
import { h, money, onTextSubmit } from "../format.js";
import { t } from "../i18n.js";
import { accountKey, errorText, session, signIn, signInWithKey, signOut, toast } from "../session.js";

export function signUpCard() {
  const input = h("input#signup-name", {
    type: "text",
    name: "display_name",
    maxlength: 32,
    autocomplete: "nickname",
    placeholder: t("signup.placeholder"),
  });
  const message = h("p.form-message", { role: "alert" });
  const form = h("form.signup-card.panel", {
    onsubmit: onTextSubmit(input, message, t("signup.name_blank"), async (name) => {
      form.querySelector("button").disabled = true;
      try {
        await signIn(name);
        toast(t("signup.welcome", { name }), "good");
      } catch (error) {
        message.textContent = errorText(error);
        form.querySelector("button").disabled = false;
      }
    }, { focus: true }),
  },
    h("h2", {}, t("signup.title")),
    h("p.muted", {}, t("signup.intro")),
    h("label.field", { for: "signup-name" }, t("signup.name_label")),
    h("div.signup-row", {}, input, h("button.btn.btn-gold#signup-submit", { type: "submit" }, t("signup.submit"))),
    message,
  );
  return h("div.account-cards", {}, form, keySignInCard());
}

function keySignInCard() {
  const input = h("input#key-input", { type: "password", name: "account_key", autocomplete: "current-password", spellcheck: "false" });
  const message = h("p.form-message", { role: "alert" });
  return h("form.panel.key-signin", {
    onsubmit: onTextSubmit(input, message, t("account.key_blank"), async (key) => {
      try {
        const player = await signInWithKey(key);
        toast(t("signup.welcome", { name: player.display_name }), "good");
      } catch (error) {
        message.textContent = error.status === 401 ? t("account.key_unknown") : errorText(error);
      }
    }),
  },
    h("h2", {}, t("account.sign_in_title")),
    h("label.field", { for: "key-input" }, t("account.key_label")),
    h("div.signup-row", {}, input, h("button.btn#key-submit", { type: "submit" }, t("account.sign_in"))),
    message,
  );
}

/** The key in a box with a copy button; ``masked`` hides it until "Show" is pressed. */
export function keyBox(masked = false) {
  const key = accountKey() || "";
  const code = h("code.account-key#account-key", { dataset: { masked: masked ? "true" : "false" } }, masked ? "•".repeat(24) : key);
  const show = masked
    ? h("button.btn.btn-ghost.btn-small#account-key-show", {
        type: "button",
        onclick: () => {
          code.textContent = key;
          code.dataset.masked = "false";
          show.remove();
        },
      }, t("account.show_key"))
    : null;
  const copy = h("button.btn.btn-ghost.btn-small#account-key-copy", {
    type: "button",
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(key);
        toast(t("account.copied"), "good");
      } catch {
        toast(t("account.copy_failed"), "warn");
      }
    },
  }, t("account.copy_key"));
  return h("div.key-box", {}, code, show, copy);
}

/** Shown once after sign-up, until the player says the key is kept. */
export function newKeyCard(rerender) {
  if (!session.keyToSave) return null;
  return h("section.panel.key-card#account-key-card", { role: "region", "aria-labelledby": "key-card-heading" },
    h("h2#key-card-heading", {}, t("account.key_heading")),
    h("p", {}, t("account.key_intro")),
    keyBox(false),
    h("button.btn.btn-gold#account-key-saved", {
      type: "button",
      onclick: () => {
        session.keyToSave = null;
        rerender();
      },
    }, t("account.key_saved")),
  );
}

/** "Sign out" asks first: without the account key the account cannot be opened again. */
export function signOutControl(rerender, state) {
  if (!state.confirming) {
    return h("button.btn.btn-ghost#sign-out", { type: "button", onclick: () => { state.confirming = true; rerender(); } }, t("lobby.sign_out"));
  }
  return h("div.confirm-box#sign-out-confirm-box", { role: "alertdialog", "aria-labelledby": "sign-out-question" },
    h("p#sign-out-question", {}, t("account.sign_out_question")),
    h("div.button-row", {},
      h("button.btn.btn-ghost#sign-out-cancel", { type: "button", onclick: () => { state.confirming = false; rerender(); } }, t("common.cancel")),
      h("button.btn.btn-danger#sign-out-confirm", { type: "button", onclick: () => { state.confirming = false; signOut(); } }, t("account.sign_out_confirm")),
    ),
  );
}

export function welcomeCard(rerender, state) {
  return h("div.account-cards", {},
    newKeyCard(rerender),
    h("section.panel.welcome-card", {},
      h("div", {},
        h("p.muted", {}, t("lobby.signed_in_as")),
        h("p.welcome-name", {}, session.player.display_name),
      ),
      h("div.welcome-balance", {},
        h("span.muted", {}, t("wallet.balance")),
        h("strong#lobby-balance", {}, money(session.player.balance)),
      ),
      h("div.welcome-actions", {},
        h("a.btn.btn-ghost#profile-link", { href: "#/profile" }, t("account.profile")),
        signOutControl(rerender, state),
      ),
    ),
  );
}
