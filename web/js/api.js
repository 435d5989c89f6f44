// REST client for /api/v1 (docs/protocol.md). The player's token is kept in localStorage.

const TOKEN_KEY = "boundless.token";
const BASE = "/api/v1";

export class ApiError extends Error {
  constructor(status, code, detail) {
    super(detail || code || `HTTP ${status}`);
    this.status = status;
    this.code = code || "http_" + status;
    this.detail = detail || "";
  }
}

/** Runs a page's requests; the error that stopped them, or null (the page shows it). */
export async function failureOf(load) {
  try {
    await load();
    return null;
  } catch (error) {
    return error;
  }
}

export function token() {
  return localStorage.getItem(TOKEN_KEY);
}

export function setToken(value) {
  if (value) localStorage.setItem(TOKEN_KEY, value);
  else localStorage.removeItem(TOKEN_KEY);
}

async function request(method, path, body) {
  const headers = { Accept: "application/json" };
  const current = token();
  if (current) headers.Authorization = `Bearer ${current}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(BASE + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { detail: text };
    }
  }
  if (!response.ok) {
    // FastAPI's own 422 shape is {"detail": [...]}; the protocol's is {"error", "detail"}.
    const detail = typeof data?.detail === "string" ? data.detail : JSON.stringify(data?.detail ?? "");
    throw new ApiError(response.status, data?.error, detail);
  }
  return data;
}

const titleCache = new Map();

export const api = {
  signUp: (displayName) => request("POST", "/players", { display_name: displayName }),
  // An operator's one-time launch code (from its launch URL), traded once for a token.
  launch: (code) => request("POST", "/operator/launch", { code }),
  me: () => request("GET", "/me"),
  tables: () => request("GET", "/tables"),
  openPrivateTable: (title, sideBetsOffered) =>
    request("POST", "/tables", { title, side_bets_offered: sideBetsOffered }),
  renameTable: (tableId, name) => request("PATCH", `/tables/${encodeURIComponent(tableId)}`, { name }),
  closeTable: (tableId) => request("DELETE", `/tables/${encodeURIComponent(tableId)}`),
  titles: () => request("GET", "/titles"),
  title(key) {
    if (!titleCache.has(key)) {
      const pending = request("GET", `/titles/${encodeURIComponent(key)}`);
      pending.catch(() => titleCache.delete(key));
      titleCache.set(key, pending);
    }
    return titleCache.get(key);
  },
  records(limit = 20, before = null) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (before) query.set("before", before);
    return request("GET", `/records?${query}`);
  },
  record: (roundId) => request("GET", `/records/${encodeURIComponent(roundId)}`),
  /** This player's last rounds at one table (the table's history panel). */
  tableHistory: (tableId, limit = 20) =>
    request("GET", `/records?${new URLSearchParams({ limit: String(limit), table_id: tableId })}`),
  tableStats: (tableId) => request("GET", `/tables/${encodeURIComponent(tableId)}/stats`),
  limits: () => request("GET", "/me/limits"),
  setLimits: (limits) => request("PUT", "/me/limits", limits),
  timeOut: (hours) => request("POST", "/me/time-out", { hours }),
  selfExclude: (months) => request("POST", "/me/self-exclusion", { months }),
  sessionFigures: () => request("GET", "/me/session"),
  setRealityCheck: (minutes) => request("PUT", "/me/reality-check", { minutes }),
  protection: () => request("GET", "/me/protection"),
  shoe: (tableId, number) =>
    request("GET", `/shoes/${encodeURIComponent(tableId)}/${encodeURIComponent(number)}`),
};

/** The list in a paged answer, whether the server sends a bare list or {items, ...}. */
export function listOf(answer) {
  if (Array.isArray(answer)) return answer;
  for (const name of ["items", "rounds", "records", "tables", "titles"]) {
    if (Array.isArray(answer?.[name])) return answer[name];
  }
  return [];
}
