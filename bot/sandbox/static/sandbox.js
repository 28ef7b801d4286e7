// The sandbox page: a Discord-like channel drawn from the emulator's Discord JSON, live over a websocket.
// ES modules, no framework, no build step. The server (bot/sandbox/_bridge.py) turns our actions into emulator user
// actions and sends us the messages our current user may see. This entry module applies the server's updates to the
// page's state and redraws the views they touch: the sidebar, the messages and the command box.

import { installCommandBox, refreshSuggestions } from "./command-box.js";
import { ui } from "./dom.js";
import { keepRelativeTimesCurrent } from "./markdown.js";
import { drawMessage, removeMessageElement, renderMessages } from "./messages.js";
import { installDrawer, markUnread, openChannel, renderChannels, renderUserSwitch } from "./sidebar.js";
import { connect } from "./socket.js";
import { state } from "./state.js";

function receive(update) {
  switch (update.type) {
    case "snapshot":
      applySnapshot(update);
      break;
    case "message_create":
    case "message_update": {
      const message = update.message;
      const created = update.type === "message_create";
      state.messages.set(message.id, message);
      if (message.channel_id === state.current) drawMessage(message, created);
      else if (created) markUnread(message.channel_id);
      break;
    }
    case "message_delete":
      state.messages.delete(update.id);
      removeMessageElement(update.id);
      break;
    case "channel":
      state.channels.set(update.channel.id, update.channel);
      renderChannels();
      break;
    case "commands":
      state.commands = update.commands;
      refreshSuggestions();
      break;
  }
}

function applySnapshot(snap) {
  state.me = snap.me;
  state.users = new Map(snap.users.map((u) => [u.id, u]));
  state.players = snap.players;
  state.channels = new Map(snap.channels.map((c) => [c.id, c]));
  if (!state.current || !state.channels.has(state.current)) state.current = snap.channel_id;
  state.messages = new Map(snap.messages.map((m) => [m.id, m]));
  state.commands = snap.commands;
  state.cdn = snap.cdn;
  state.unread.clear();
  ui.guildName.textContent = snap.guild.name;
  document.body.dataset.me = snap.me.name;
  const url = new URL(location.href);
  url.searchParams.set("as", snap.me.name);
  history.replaceState(null, "", url);
  renderUserSwitch();
  renderChannels();
  renderMessages();
  document.body.dataset.ready = "1";
}

// a thread's card under the message that started it opens the thread
ui.messages.addEventListener("click", (event) => {
  const card = event.target.closest(".thread-card");
  if (card) openChannel(card.dataset.thread);
});
installCommandBox();
installDrawer();
keepRelativeTimesCurrent();
connect(receive);
