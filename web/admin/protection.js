// The console's player-protection panel: players under a limit, a time-out or a self-exclusion,
// the latest protection events, and acting for a player (a limit, a time-out, an exclusion),
// always with a reason the server records beside the change.

const $ = (selector) => document.querySelector(selector);
const KIND_NAMES = { limit: "Under a limit", time_out: "Timed out", self_exclusion: "Self-excluded" };

function when(ms) {
  return ms ? new Date(ms).toLocaleString() : "–";
}

function what(event) {
  if (event.kind === "limit") return `limit ${event.field} = ${event.amount ?? "none"}`;
  if (event.kind === "reality_check") return `reality check every ${event.amount} min`;
  if (event.kind === "reality_answer") return `reality check answered: ${event.field}`;
  return `${event.kind.replace("_", "-")} until ${when(event.until_ms)}`;
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const text of cells) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.append(td);
  }
  return tr;
}

/** Read the panel again; a failure (the database away) is said in the panel's own line. */
export async function refreshProtection(api) {
  const status = $("#protection-status");
  let answer;
  try {
    answer = await api("GET", "protection?limit=50");
  } catch (error) {
    status.textContent = `Could not refresh player protection: ${error.message}`;
    status.classList.add("bad");
    return;
  }
  status.textContent = "";
  status.classList.remove("bad");
  const lists = Object.entries(KIND_NAMES).map(([kind, name]) => {
    const item = document.createElement("li");
    const players = answer.players[kind] || [];
    item.textContent = `${name} (${players.length}): ${players.join(", ") || "nobody"}`;
    return item;
  });
  $("#protected-players").replaceChildren(...lists);
  $("#protection-events tbody").replaceChildren(
    ...answer.events.map((event) =>
      row([when(event.created_ms), event.player_id, what(event), event.actor, event.reason || "", when(event.effective_ms)]),
    ),
  );
}

export function wireProtectionForm(api, say) {
  $("#protect-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const player = $("#protect-player").value.trim();
    const action = $("#protect-action").value;
    const value = $("#protect-value").value.trim();
    const reason = $("#protect-reason").value.trim();
    if (!player || !reason) {
      say("A player id and a reason are both needed.", true);
      return;
    }
    const path = `players/${encodeURIComponent(player)}`;
    try {
      if (action === "time-out") await api("POST", `${path}/time-out`, { hours: Number(value), reason });
      else if (action === "self-exclusion") await api("POST", `${path}/self-exclusion`, { months: Number(value), reason });
      else {
        const amount = value === "" ? null : Number(value);
        const body = { reason };
        if (action === "session_minutes") body.session_minutes = amount;
        else {
          const [kind, window] = action.split(".");
          body[kind] = { [window]: amount };
        }
        await api("PUT", `${path}/limits`, body);
      }
      say(`Done: ${action} for ${player}.`);
      await refreshProtection(api);
    } catch (error) {
      say(`Refused: ${error.message}`, true);
    }
  });
}
