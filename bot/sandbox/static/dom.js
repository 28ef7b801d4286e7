// The page's fixed elements (index.html) and the small DOM helpers every view uses: an element builder, avatars,
// toasts and link checking.

const $ = (id) => document.getElementById(id);

export const ui = {
  guildName: $("guild-name"),
  channelList: $("channel-list"),
  userSwitch: $("user-switch"),
  chatIcon: $("chat-icon"),
  chatTitle: $("chat-title"),
  messages: $("messages"),
  composer: $("composer"),
  input: $("command"),
  suggest: $("suggest"),
  toasts: $("toasts"),
  conn: $("conn"),
  notice: $("notice"),
  menuToggle: $("menu-toggle"),
  meChip: $("me-chip"),
  backdrop: $("backdrop"),
};

const AVATAR_COLOURS = ["#5865f2", "#3ba55c", "#faa61a", "#ed4245", "#eb459e", "#747f8d"];

export function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

export function avatar(user, size) {
  const name = user.name || "?";
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const node = el("div", { class: "avatar" + (size ? " " + size : ""), "aria-hidden": "true" });
  node.style.background = user.bot ? "#c8a165" : AVATAR_COLOURS[hash % AVATAR_COLOURS.length];
  node.textContent = user.bot ? "👑" : name[0].toUpperCase();
  return node;
}

export function toast(text, kind) {
  const node = el("div", { class: "toast" + (kind ? " " + kind : ""), role: "alert" }, text);
  ui.toasts.append(node);
  setTimeout(() => node.remove(), 6000);
}

/** The URL if it is http(s), else a harmless "#": links and images in messages come from the bot. */
export function safeUrl(url) {
  return /^https?:\/\//i.test(url || "") ? url : "#";
}

/** A link to another site, opened in a new tab that learns nothing of this page; a URL of any other scheme than
 * http(s) gives no link at all, only its text. */
export function externalLink(url, attrs, text) {
  if (safeUrl(url) === "#") return el("span", attrs, text);
  return el("a", Object.assign({}, attrs, { href: url, target: "_blank", rel: "noopener noreferrer" }), text);
}
