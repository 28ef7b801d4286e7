// The sidebar: the channel list (channels, their open threads, unread marks) with switching the shown channel, and
// the switch of which user the page acts as. On a phone it is a drawer over the chat, opened from the chat's header
// (the menu button, or the chip of the user we act as) and closed by a choice, the backdrop or Escape.

import { avatar, el, ui } from "./dom.js";
import { renderMessages } from "./messages.js";
import { send } from "./socket.js";
import { compareIds, state } from "./state.js";

export function renderUserSwitch() {
  if (state.me) ui.meChip.replaceChildren(avatar({ name: state.me.name }, "small"), el("span", {}, state.me.name));
  ui.userSwitch.replaceChildren(
    ...state.players.map((name) => {
      const button = el("button", { type: "button", role: "radio", "data-user": name, title: `Act as ${name}` });
      button.setAttribute("aria-checked", String(state.me && state.me.name === name));
      button.append(avatar({ name }, "medium"), el("span", {}, name));
      button.addEventListener("click", () => {
        if (!state.me || state.me.name !== name) send("as", { user: name });
        closeDrawer();
      });
      return button;
    })
  );
}

export function renderChannels() {
  const items = [el("div", { class: "channel-cat" }, "Text channels")];
  const all = [...state.channels.values()];
  const tops = all.filter((c) => !c.thread && !c.private).sort((a, b) => a.position - b.position);
  for (const channel of tops) {
    items.push(channelItem(channel));
    const threads = all
      .filter((c) => c.thread && c.parent_id === channel.id && !c.archived)
      .sort((a, b) => compareIds(a.id, b.id));
    for (const thread of threads) items.push(channelItem(thread));
  }
  // the DM with the bot and the group DM, where King Me is installed on the account (the bot is not in the group DM)
  const dms = all.filter((c) => c.private).sort((a, b) => compareIds(a.id, b.id));
  if (dms.length) items.push(el("div", { class: "channel-cat" }, "Direct messages"));
  for (const dm of dms) items.push(channelItem(dm));
  ui.channelList.replaceChildren(...items);
  const current = state.channels.get(state.current);
  ui.chatIcon.textContent = current ? iconOf(current) : "#";
  ui.chatTitle.textContent = current ? current.name : "";
  ui.input.placeholder = current
    ? `Message ${current.thread || current.private ? "" : "#"}${current.name}: type / for the commands`
    : "Type / for the commands";
}

function iconOf(channel) {
  if (channel.private) return "@";
  return channel.thread ? "🧵" : "#";
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
  item.append(el("span", { class: "icon" }, iconOf(channel)), el("span", {}, channel.name));
  item.addEventListener("click", () => openChannel(channel.id));
  return item;
}

export function openChannel(id) {
  closeDrawer();
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

function setDrawer(open) {
  document.body.classList.toggle("drawer-open", open);
  ui.backdrop.hidden = !open;
  ui.menuToggle.setAttribute("aria-expanded", String(open));
}

function closeDrawer() {
  if (document.body.classList.contains("drawer-open")) setDrawer(false);
}

/** Make the phone's drawer work (on a wide screen the sidebar is always shown and these controls are hidden). */
export function installDrawer() {
  ui.menuToggle.addEventListener("click", () => setDrawer(!document.body.classList.contains("drawer-open")));
  ui.meChip.addEventListener("click", () => setDrawer(true));
  ui.backdrop.addEventListener("click", closeDrawer);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeDrawer();
  });
}
