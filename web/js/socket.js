// The one WebSocket of this page (docs/protocol.md): hello → welcome, then requests with a
// request_id answered by ack or error, and pushed state/you/step/settled/notice messages.
// It reconnects with back-off and then asks the views to resync.

import { token } from "./api.js";

export const PROTOCOL_VERSION = 1;
const REQUEST_TIMEOUT_MS = 10000;

let socket = null;
let ready = null;
let backoff = 500;
let counter = 0;
let clockOffset = 0; // server clock minus ours, in ms
let closedOnPurpose = false;
const pending = new Map();
const listeners = new Map();
const statusListeners = new Set();

export function serverNow() {
  return Date.now() + clockOffset;
}

/** Subscribe to pushed messages of ``type`` ("*" for all); returns the unsubscribe function. */
export function on(type, handler) {
  if (!listeners.has(type)) listeners.set(type, new Set());
  listeners.get(type).add(handler);
  return () => listeners.get(type).delete(handler);
}

export function onStatus(handler) {
  statusListeners.add(handler);
  return () => statusListeners.delete(handler);
}

function emit(type, message) {
  for (const handler of listeners.get(type) || []) handler(message);
  for (const handler of listeners.get("*") || []) handler(message);
}

function setStatus(status) {
  for (const handler of statusListeners) handler(status);
}

function noteServerTime(message) {
  const stamp = message.server_time_ms ?? message.server_ms;
  if (typeof stamp === "number") clockOffset = stamp - Date.now();
}

/** Connect (once) and authenticate; resolves with the welcome message. */
export function connect() {
  if (ready) return ready;
  closedOnPurpose = false;
  ready = new Promise((resolve, reject) => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    socket = ws;
    let welcomed = false;
    ws.addEventListener("open", () => {
      ws.send(JSON.stringify({ v: PROTOCOL_VERSION, type: "hello", token: token() }));
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      noteServerTime(message);
      if (!welcomed) {
        if (message.type === "welcome") {
          welcomed = true;
          backoff = 500;
          setStatus("online");
          resolve(message);
          emit("welcome", message);
        } else if (message.type === "error" || message.error) {
          reject(Object.assign(new Error(message.detail || message.error), { code: message.error }));
        }
        return;
      }
      const waiting = message.request_id ? pending.get(message.request_id) : null;
      if (waiting && (message.type === "ack" || message.type === "error")) {
        pending.delete(message.request_id);
        clearTimeout(waiting.timer);
        if (message.type === "ack") waiting.resolve(message);
        else waiting.reject(Object.assign(new Error(message.detail || message.error), { code: message.error }));
      }
      emit(message.type, message);
    });
    ws.addEventListener("close", (event) => {
      for (const [, waiting] of pending) {
        clearTimeout(waiting.timer);
        waiting.reject(Object.assign(new Error("connection closed"), { code: "disconnected" }));
      }
      pending.clear();
      ready = null;
      socket = null;
      if (!welcomed) reject(Object.assign(new Error(event.reason || "connection refused"), { code: "disconnected" }));
      if (closedOnPurpose) return;
      setStatus("offline");
      // An authentication refusal is final; anything else is retried.
      if (event.code === 4401 || event.code === 1008) return;
      setTimeout(() => {
        connect()
          .then(() => emit("reconnected", {}))
          .catch(() => {});
      }, backoff);
      backoff = Math.min(backoff * 2, 8000);
    });
  });
  return ready;
}

export function disconnect() {
  closedOnPurpose = true;
  if (socket) socket.close();
  socket = null;
  ready = null;
}

/** Send a request; resolves with its ack, rejects with its error ({code, message}). */
export async function send(type, fields = {}) {
  await connect();
  const requestId = `r${Date.now().toString(36)}${(counter++).toString(36)}`;
  const message = { v: PROTOCOL_VERSION, type, request_id: requestId, ...fields };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(requestId);
      reject(Object.assign(new Error("no answer"), { code: "timeout" }));
    }, REQUEST_TIMEOUT_MS);
    pending.set(requestId, { resolve, reject, timer });
    socket.send(JSON.stringify(message));
  });
}

/** A fresh id for a bet (retrying the same id moves no coin twice). */
export function newBetId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
