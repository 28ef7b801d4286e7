// The websocket to the sandbox server (bot/sandbox/_bridge.py): connect and reconnect, send an action with a `ref`,
// and answer that action's handlers when the server replies to it (`choices`, `done`, `error`). Every other update
// goes to the listener given to connect(). A socket without the sandbox's key is `refused`: the page shows the
// server's line saying what to do and stops reconnecting, which could never help.

import { toast, ui } from "./dom.js";
import { state } from "./state.js";

let socket = null;
let nextRef = 1;
const pending = new Map(); // ref -> {onDone, onError, onChoices}
let retry = 0;
let listener = () => {};
let refusal = null; // the server's line, once it has refused this page's key
const REFUSED = 4003; // the close code of a refused socket (bot/sandbox/_bridge.py, REFUSED)

/** Open the socket, as the current user (or the page's ?as=), and keep it open; updates go to `onUpdate`. */
export function connect(onUpdate) {
  listener = onUpdate;
  open();
}

function open() {
  const query = new URLSearchParams(location.search);
  const as = state.me ? state.me.name : query.get("as") || "";
  const url = new URL("/sandbox/ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  if (as) url.searchParams.set("as", as);
  url.searchParams.set("key", query.get("key") || ""); // this run's key, from the address kingme sandbox printed
  socket = new WebSocket(url);
  socket.onopen = () => {
    retry = 0;
    ui.conn.classList.add("up");
    ui.conn.title = "Connected";
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = (event) => {
    ui.conn.classList.remove("up");
    document.body.dataset.ready = "";
    for (const [, handlers] of pending) handlers.onError && handlers.onError("disconnected");
    pending.clear();
    if (event.code === REFUSED) {
      showRefusal(refusal || event.reason || "Refused: open the address kingme printed");
      return;
    }
    ui.conn.title = "Disconnected: reconnecting";
    retry = Math.min(retry + 1, 6);
    setTimeout(open, 250 * retry);
  };
}

/** Say why the sandbox refused this page, in one line above the messages, and leave the socket closed. */
function showRefusal(text) {
  refusal = text;
  ui.conn.title = text;
  ui.notice.textContent = text;
  ui.notice.hidden = false;
  document.body.dataset.refused = "1";
}

/** Send the action `op`; `handlers` (all optional) hear how it ends: onDone, onError, onChoices. */
export function send(op, fields, handlers) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    toast(refusal || "Not connected to the sandbox: wait a moment");
    handlers && handlers.onError && handlers.onError("not connected");
    return null;
  }
  const ref = nextRef++;
  if (handlers) pending.set(ref, handlers);
  socket.send(JSON.stringify(Object.assign({ op, ref }, fields)));
  return ref;
}

function receive(update) {
  switch (update.type) {
    case "refused": // the socket closes next, with the code REFUSED
      refusal = update.text;
      break;
    case "choices":
    case "done":
    case "error": {
      const handlers = pending.get(update.ref);
      pending.delete(update.ref);
      if (update.type === "error") {
        toast(update.text);
        handlers && handlers.onError && handlers.onError(update.text);
      } else if (update.type === "choices") {
        handlers && handlers.onChoices && handlers.onChoices(update.choices);
      } else {
        handlers && handlers.onDone && handlers.onDone(update);
      }
      break;
    }
    default:
      listener(update);
  }
}
