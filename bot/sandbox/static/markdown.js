// Discord's markdown as HTML, the parts the bot uses: code, bold, italics, underline, strikethrough, spoilers, links,
// headings, subtext, quotes, mentions, timestamps (<t:…>) and custom emoji; and the clock that keeps relative
// timestamps ("in 5 minutes") current.

import { state } from "./state.js";

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

const BARE_URL = /\bhttps?:\/\/[^\s<>\u0000]+/gi;
const TRAILING = /[.,:;!?'")\]]*$/; // punctuation after a bare URL ends the sentence, not the URL

/** An anchor to `url` (http or https only, checked by the callers' patterns) that opens in a new tab and tells the
 * other site nothing of this page; `label` is HTML. */
function link(url, label) {
  return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${label}</a>`;
}

/** The HTML of a message text; mentions name the users and channels the page knows. */
export function markdown(source) {
  const kept = [];
  const keep = (html) => `\u0000${kept.push(html) - 1}\u0000`;
  let text = String(source);
  text = text.replace(/```(?:[a-z0-9_+-]*\n)?([\s\S]*?)```/gi, (_, code) => keep(`<pre><code>${escapeHtml(code)}</code></pre>`));
  text = text.replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${escapeHtml(code)}</code>`));
  // links, as Discord makes them: masked [text](url) (also [text](<url>)), <url> (no embed) and bare URLs; only
  // http(s): any other scheme stays plain text
  text = text.replace(/\[([^\]\n]+)\]\(<?(https?:\/\/[^\s<>()]+)>?\)/gi, (_, label, url) =>
    keep(link(url, escapeHtml(label)))
  );
  text = text.replace(/<(https?:\/\/[^\s<>]+)>/gi, (_, url) => keep(link(url, escapeHtml(url))));
  text = text.replace(BARE_URL, (url) => {
    const end = url.match(TRAILING)[0];
    const bare = url.slice(0, url.length - end.length);
    return keep(link(bare, escapeHtml(bare))) + end;
  });
  text = text.replace(/<@!?(\d+)>/g, (_, id) => {
    const user = state.users.get(id);
    const mine = state.me && state.me.id === id;
    return keep(`<span class="mention${mine ? " me" : ""}">@${escapeHtml(user ? user.name : id)}</span>`);
  });
  text = text.replace(/<#(\d+)>/g, (_, id) => {
    const channel = state.channels.get(id);
    return keep(`<span class="mention">#${escapeHtml(channel ? channel.name : id)}</span>`);
  });
  text = text.replace(/<t:(-?\d+)(?::([tTdDfFR]))?>/g, (_, seconds, style) =>
    keep(`<span class="timestamp" data-ts="${seconds}" data-style="${style || "f"}" title="${escapeHtml(
      new Date(seconds * 1000).toLocaleString())}">${escapeHtml(discordTime(Number(seconds), style || "f"))}</span>`)
  );
  text = text.replace(/<(a?):(\w+):(\d+)>/g, (_, animated, name, id) => keep(customEmoji(name, id, animated)));
  text = escapeHtml(text);
  text = text.replace(/\*\*([\s\S]+?)\*\*/g, "<strong>$1</strong>");
  text = text.replace(/__([\s\S]+?)__/g, "<u>$1</u>");
  text = text.replace(/(^|[^*\w])\*([^*\n]+?)\*(?!\*)/g, "$1<em>$2</em>");
  text = text.replace(/(^|[^_\w])_([^_\n]+?)_(?!\w)/g, "$1<em>$2</em>");
  text = text.replace(/~~([\s\S]+?)~~/g, "<s>$1</s>");
  text = text.replace(/\|\|([\s\S]+?)\|\|/g, '<span class="spoiler" onclick="this.classList.add(\'shown\')">$1</span>');
  text = text
    .split("\n")
    .map((line) => {
      let m;
      if ((m = /^(#{1,3}) (.+)$/.exec(line))) return `<h${m[1].length}>${m[2]}</h${m[1].length}>`;
      if ((m = /^-# (.+)$/.exec(line))) return `<span class="subtext">${m[1]}</span>`;
      if ((m = /^&gt; (.*)$/.exec(line))) return `<blockquote>${m[1]}</blockquote>`;
      return line;
    })
    .join("\n")
    .replace(/(<\/h\d>|<\/blockquote>)\n/g, "$1");
  return text.replace(/\u0000(\d+)\u0000/g, (_, i) => kept[Number(i)]);
}

/** A custom emoji as Discord draws it: its image from the CDN, the size of the text around it (a message of
 * nothing but emoji shows them bigger: see jumbo). */
function customEmoji(name, id, animated) {
  const src = `${state.cdn}/emojis/${id}.${animated ? "gif" : "png"}`;
  return `<img class="emoji" src="${escapeHtml(src)}" alt=":${escapeHtml(name)}:" title=":${escapeHtml(name)}:" ` +
    `data-name="${escapeHtml(name)}" draggable="false">`;
}

const JUMBO_LIMIT = 27;

/** Whether Discord shows a message text's emoji "jumbo": the text is nothing but emoji (custom or Unicode, and
 * whitespace), at most 27 of them. */
export function isJumbo(source) {
  const custom = /<a?:\w+:\d+>/g;
  const count = (String(source).match(custom) || []).length;
  const rest = String(source).replace(custom, "");
  const unicode = [...rest.matchAll(/\p{Extended_Pictographic}/gu)].length;
  const bare = rest.replace(/[\p{Extended_Pictographic}\p{Emoji_Component}\u200b\u200d\ufe0f\s]/gu, "");
  return bare === "" && count + unicode > 0 && count + unicode <= JUMBO_LIMIT;
}

function discordTime(seconds, style) {
  const date = new Date(seconds * 1000);
  switch (style) {
    case "t":
      return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    case "T":
      return date.toLocaleTimeString();
    case "d":
      return date.toLocaleDateString();
    case "D":
      return date.toLocaleDateString([], { dateStyle: "long" });
    case "F":
      return date.toLocaleString([], { dateStyle: "full", timeStyle: "short" });
    case "R":
      return relative(seconds);
    default:
      return date.toLocaleString([], { dateStyle: "long", timeStyle: "short" });
  }
}

function relative(seconds) {
  const delta = seconds - Date.now() / 1000;
  const units = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
  const format = new Intl.RelativeTimeFormat([], { numeric: "auto" });
  for (const [unit, size] of units) {
    if (Math.abs(delta) >= size || unit === "second") return format.format(Math.round(delta / size), unit);
  }
  return "";
}

/** Redraw the relative timestamps on the page every 15 seconds. */
export function keepRelativeTimesCurrent() {
  setInterval(() => {
    for (const node of document.querySelectorAll('.timestamp[data-style="R"]')) {
      node.textContent = relative(Number(node.dataset.ts));
    }
  }, 15000);
}

