// The sidebar: the channel list (channels, their open threads, unread marks) with switching the shown channel, and
// the switch of which user the page acts as.

import { avatar, el, ui } from "./dom.js";
import { renderMessages } from "./messages.js";
import { send } from "./socket.js";
import { compareIds, state } from "./state.js";

export function renderUserSwitch() {
  ui.userSwitch.replaceChildren(
    ...state.players.map((name) => {
      const button = el("button", { type: "button", role: "radio", "data-user": name, title: `Act as ${name}` });
      button.setAttribute("aria-checked", String(state.me && state.me.name === name));
      button.append(avatar({ name }, "medium"), el("span", {}, name));
      button.addEventListener("click", () => {
        if (!state.me || state.me.name !== name) send("as", { user: name });
      });
      return button;
    })
  );
}

export function renderChannels() {
  const items = [el("div", { class: "channel-cat" }, "Text channels")];
  const tops = [...state.channels.values()].filter((c) => !c.thread).sort((a, b) => a.position - b.position);
  for (const channel of tops) {
    items.push(channelItem(channel));
    const threads = [...state.channels.values()]
      .filter((c) => c.thread && c.parent_id === channel.id && !c.archived)
      .sort((a, b) => compareIds(a.id, b.id));
    for (const thread of threads) items.push(channelItem(thread));
  }
  ui.channelList.replaceChildren(...items);
  const current = state.channels.get(state.current);
  ui.chatIcon.textContent = current && current.thread ? "🧵" : "#";
  ui.chatTitle.textContent = current ? current.name : "";
  ui.input.placeholder = current
    ? `Message ${current.thread ? "" : "#"}${current.name}: type / for the commands`
    : "Type / for the commands";
}

function channelItem(channel) {
  const item = el("div", {
    class: "channel" + (channel.thread ? " thread" : ""),
    role: "listitem",
    "data-channel": channel.id,
    "data-name": channel.name,
    title: channel.name,
  });
  item.classList.toggle("active", channel.id === state.current);
  item.classList.toggle("unread", state.unread.has(channel.id));
  item.append(el("span", { class: "icon" }, channel.thread ? "🧵" : "#"), el("span", {}, channel.name));
  item.addEventListener("click", () => openChannel(channel.id));
  return item;
}

export function openChannel(id) {
  state.current = id;
  state.unread.delete(id);
  renderChannels();
  renderMessages();
}

/** A message arrived in a channel not shown: mark it in the list. */
export function markUnread(channelId) {
  state.unread.add(channelId);
  renderChannels();
}
