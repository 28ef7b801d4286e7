// The shown channel's messages as Discord draws them: author, the command that asked, content, embeds, attachments,
// components, the thread card, and the "only you can see this" note of an ephemeral reply with its dismiss link.

import { avatar, el, externalLink, safeUrl, ui } from "./dom.js";
import { renderComponents } from "./components.js";
import { isJumbo, markdown } from "./markdown.js";
import { compareIds, state } from "./state.js";

const EPHEMERAL = 1 << 6, LOADING = 1 << 7;

function channelMessages(channelId) {
  return [...state.messages.values()]
    .filter((m) => m.channel_id === channelId && !state.dismissed.has(m.id))
    .sort((a, b) => compareIds(a.id, b.id));
}

/** Draw the shown channel's messages afresh (or a hint of what to type when it has none). */
export function renderMessages() {
  const list = channelMessages(state.current);
  if (!list.length) {
    const hint = el("div", { class: "empty-channel" });
    hint.innerHTML =
      "Nothing here yet. Type <code>/checkers play level:easy</code> to play the AI, or " +
      "<code>/checkers challenge opponent:bob</code> and switch to bob (bottom left) to accept.";
    ui.messages.replaceChildren(hint);
    return;
  }
  ui.messages.replaceChildren(...list.map(renderMessage));
  ui.messages.scrollTop = ui.messages.scrollHeight;
}

/** Draw a new or changed message of the shown channel; follow it down when the list was at its bottom or it
 * answers our own command. */
export function drawMessage(message, created) {
  const stuck = ui.messages.scrollHeight - ui.messages.scrollTop - ui.messages.clientHeight < 80;
  const old = ui.messages.querySelector(`.msg[data-id="${message.id}"]`);
  if (old) {
    old.replaceWith(renderMessage(message));
  } else {
    renderMessages();
  }
  if (stuck || (created && message.interaction_metadata && isMine(message))) {
    ui.messages.scrollTop = ui.messages.scrollHeight;
  }
}

function isMine(message) {
  const meta = message.interaction_metadata;
  return meta && meta.user && state.me && meta.user.id === state.me.id;
}

export function removeMessageElement(id) {
  const node = ui.messages.querySelector(`.msg[data-id="${id}"]`);
  if (node) node.remove();
}

function renderMessage(m) {
  const ephemeral = (m.flags & EPHEMERAL) !== 0;
  const loading = (m.flags & LOADING) !== 0;
  const node = el("article", {
    class: "msg" + (ephemeral ? " ephemeral" : ""),
    "data-id": m.id,
    "data-author": m.author.username,
    "data-ephemeral": String(ephemeral),
  });
  node.append(avatar({ name: m.author.username, bot: m.author.bot }));
  const meta = m.interaction_metadata;
  if (meta && meta.user) {
    const ref = el("div", { class: "ref" });
    ref.append(avatar({ name: meta.user.username }, "small"), el("span", { class: "who" }, meta.user.username));
    if (meta.name) {
      ref.append(el("span", {}, " used "), el("span", { class: "cmd" }, "/" + meta.name));
    } else {
      ref.append(el("span", {}, " clicked a component"));
    }
    node.append(ref);
  }
  const head = el("div", { class: "msg-head" });
  head.append(el("span", { class: "name" }, m.author.global_name || m.author.username));
  if (m.author.bot) head.append(el("span", { class: "bot-tag" }, "APP"));
  head.append(el("time", { datetime: m.timestamp, title: new Date(m.timestamp).toLocaleString() }, clock(m.timestamp)));
  node.append(head);
  if (loading) {
    const thinking = el("div", { class: "content thinking" });
    thinking.append(el("span", { class: "dots" }, `${m.author.username} is thinking`));
    node.append(thinking);
  } else if (m.content) {
    const content = el("div", { class: "content" + (isJumbo(m.content) ? " jumbo" : "") });
    content.innerHTML = markdown(m.content);
    if (m.edited_timestamp) content.append(el("span", { class: "edited", title: m.edited_timestamp }, "(edited)"));
    node.append(content);
  }
  for (const embed of m.embeds || []) node.append(renderEmbed(embed));
  if (m.attachments && m.attachments.length) {
    const box = el("div", { class: "attachments" });
    for (const a of m.attachments) box.append(renderAttachment(m, a));
    node.append(box);
  }
  if (m.components && m.components.length) node.append(renderComponents(m, m.components));
  if (m.thread) {
    const thread = state.channels.get(m.thread.id) || m.thread;
    // a click on the card opens the thread (sandbox.js listens on the message list)
    const card = el("div", { class: "thread-card", "data-thread": m.thread.id });
    card.append(el("span", {}, "🧵"), el("span", { class: "tname" }, thread.name), el("span", {}, "›"));
    node.append(card);
  }
  if (ephemeral) {
    const note = el("div", { class: "ephemeral-note" });
    note.append(el("span", {}, "👁 Only you can see this • "));
    const dismiss = el("a", { role: "button" }, "Dismiss message");
    dismiss.addEventListener("click", () => {
      state.dismissed.add(m.id);
      node.remove();
    });
    note.append(dismiss);
    node.append(note);
  }
  return node;
}

/** A file as Discord shows one: an icon, its name (a link that downloads it) and size, and a download button. The
 * file comes from the sandbox server, which gives it only to a user who may see the message (see fileUrl). */
function renderAttachment(message, a) {
  const url = fileUrl(message, a);
  const card = el("div", { class: "attachment", "data-filename": a.filename });
  const meta = el("div", { class: "file-meta" });
  meta.append(
    el("a", { class: "fname", href: url, download: a.filename, title: a.filename }, a.filename),
    el("span", { class: "size" }, bytes(a.size))
  );
  const save = el("a", { class: "file-download", href: url, download: a.filename, title: `Download ${a.filename}` });
  save.setAttribute("aria-label", `Download ${a.filename}`);
  save.textContent = "⤓";
  card.append(el("span", { class: "file-icon", "aria-hidden": "true" }, "📄"), meta, save);
  return card;
}

/** Where the page downloads an attachment: the sandbox server's file route, with this run's key (from the page's
 * address) and the user we act as. */
function fileUrl(message, a) {
  const path = ["/sandbox/files", message.id, a.id, a.filename].map((p, i) => (i ? encodeURIComponent(p) : p));
  const query = new URLSearchParams({
    key: new URLSearchParams(location.search).get("key") || "",
    as: state.me ? state.me.name : "",
  });
  return `${path.join("/")}?${query}`;
}

function renderEmbed(embed) {
  const box = el("div", { class: "embed" });
  if (typeof embed.color === "number") box.style.borderLeftColor = "#" + embed.color.toString(16).padStart(6, "0");
  if (embed.author && embed.author.name) box.append(el("div", { class: "embed-author" }, embed.author.name));
  if (embed.title) {
    const title = el("div", { class: "embed-title" });
    if (embed.url) {
      title.append(externalLink(embed.url, {}, embed.title));
    } else {
      title.innerHTML = markdown(embed.title);
    }
    box.append(title);
  }
  if (embed.description) {
    const desc = el("div", { class: "embed-desc" });
    desc.innerHTML = markdown(embed.description);
    box.append(desc);
  }
  if (embed.fields && embed.fields.length) {
    const fields = el("div", { class: "embed-fields" });
    for (const f of embed.fields) {
      const field = el("div", { class: "embed-field" + (f.inline ? " inline" : "") });
      const name = el("div", { class: "fname" });
      name.innerHTML = markdown(f.name);
      const value = el("div", { class: "fvalue" });
      value.innerHTML = markdown(f.value);
      field.append(name, value);
      fields.append(field);
    }
    box.append(fields);
  }
  if (embed.image && embed.image.url) box.append(el("img", { class: "image", src: safeUrl(embed.image.url), alt: "" }));
  if (embed.thumbnail && embed.thumbnail.url) {
    box.append(el("img", { class: "thumb", src: safeUrl(embed.thumbnail.url), alt: "" }));
  }
  const footer = [];
  if (embed.footer && embed.footer.text) footer.push(embed.footer.text);
  if (embed.timestamp) footer.push(new Date(embed.timestamp).toLocaleString());
  if (footer.length) box.append(el("div", { class: "embed-footer" }, footer.join(" • ")));
  return box;
}

function clock(iso) {
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  const time = date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return today ? `Today at ${time}` : `${date.toLocaleDateString()} ${time}`;
}

function bytes(size) {
  if (size < 1024) return `${size} bytes`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}
