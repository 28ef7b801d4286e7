// Discord's message components drawn and made to work: action rows, sections, text displays, separators and
// containers; buttons (a click) and select menus (a choice, sent when the menu closes), both sent as actions.

import { el, externalLink, ui } from "./dom.js";
import { markdown } from "./markdown.js";
import { send } from "./socket.js";

export function renderComponents(message, components) {
  const box = el("div", { class: "components" });
  for (const c of components) box.append(renderComponent(message, c));
  return box;
}

function renderComponent(message, c) {
  switch (c.type) {
    case 1: {
      const row = el("div", { class: "row" });
      for (const child of c.components || []) row.append(renderComponent(message, child));
      return row;
    }
    case 2:
      return renderButton(message, c);
    case 3:
      return renderSelect(message, c);
    case 9: {
      const section = el("div", { class: "section" });
      for (const child of c.components || []) section.append(renderComponent(message, child));
      if (c.accessory) section.append(renderComponent(message, c.accessory));
      return section;
    }
    case 10: {
      const text = el("div", { class: "content" });
      text.innerHTML = markdown(c.content || "");
      return text;
    }
    case 14:
      return el("hr", {});
    case 17: {
      const container = el("div", { class: "container" });
      for (const child of c.components || []) container.append(renderComponent(message, child));
      return container;
    }
    default:
      return el("div", { class: "subtext" }, `(a component of type ${c.type} the sandbox does not draw)`);
  }
}

function emojiText(emoji) {
  if (!emoji) return "";
  return emoji.id ? `:${emoji.name}:` : emoji.name || "";
}

function renderButton(message, c) {
  if (c.style === 5 && c.url) {
    const link = externalLink(c.url, { class: "btn s5" });
    link.append(emojiText(c.emoji) + (c.label ? " " + c.label : ""), el("span", {}, " ↗"));
    return link;
  }
  const button = el("button", {
    type: "button",
    class: `btn s${c.style || 2}`,
    "data-custom-id": c.custom_id || "",
  });
  button.textContent = [emojiText(c.emoji), c.label || ""].filter(Boolean).join(" ");
  button.disabled = !!c.disabled;
  button.addEventListener("click", () => {
    button.classList.add("busy");
    button.disabled = true;
    const settle = () => {
      button.classList.remove("busy");
      button.disabled = !!c.disabled;
    };
    send("click", { message: message.id, custom_id: c.custom_id }, { onDone: settle, onError: settle });
  });
  return button;
}

function renderSelect(message, c) {
  const options = c.options || [];
  const chosen = new Set(options.filter((o) => o.default).map((o) => o.value));
  const multi = (c.max_values || 1) > 1;
  const box = el("div", { class: "select" + (c.disabled ? " disabled" : ""), "data-custom-id": c.custom_id });
  const head = el("button", { type: "button", class: "select-head", "aria-haspopup": "listbox" });
  const menu = el("div", { class: "select-menu", role: "listbox" });
  menu.hidden = true;
  function drawHead() {
    const picked = options.filter((o) => chosen.has(o.value));
    head.replaceChildren();
    if (picked.length) {
      head.append(picked.map((o) => [emojiText(o.emoji), o.label].filter(Boolean).join(" ")).join(", "));
    } else {
      head.append(el("span", { class: "placeholder" }, c.placeholder || "Make a selection"));
    }
  }
  drawHead();
  for (const option of options) {
    const row = el("div", { class: "option", role: "option", "data-value": option.value });
    row.classList.toggle("chosen", chosen.has(option.value));
    if (option.emoji) row.append(el("span", { class: "emoji" }, emojiText(option.emoji)));
    const text = el("div", {});
    text.append(el("div", { class: "olabel" }, option.label));
    if (option.description) text.append(el("div", { class: "odesc" }, option.description));
    row.append(text);
    row.addEventListener("click", (event) => {
      event.stopPropagation();
      if (multi) {
        chosen.has(option.value) ? chosen.delete(option.value) : chosen.add(option.value);
        row.classList.toggle("chosen", chosen.has(option.value));
        drawHead();
        return;
      }
      chosen.clear();
      chosen.add(option.value);
      close(true);
    });
    menu.append(row);
  }
  let before = [...chosen].sort().join("\n");
  function close(submit) {
    if (menu.hidden) return;
    menu.hidden = true;
    box.classList.remove("open");
    document.removeEventListener("click", outside, true);
    drawHead();
    const values = [...chosen];
    if (!submit || values.join("\n") === before && multi) return;
    const min = c.min_values === undefined ? 1 : c.min_values;
    if (values.length < min) return;
    before = values.slice().sort().join("\n");
    box.classList.add("busy");
    const settle = () => box.classList.remove("busy");
    send("select", { message: message.id, custom_id: c.custom_id, values }, { onDone: settle, onError: settle });
  }
  function outside(event) {
    if (!box.contains(event.target)) close(multi);
  }
  head.addEventListener("click", () => {
    if (c.disabled) return;
    if (!menu.hidden) return close(multi);
    menu.hidden = false;
    box.classList.add("open");
    // open upwards when the menu would run past the bottom of the message list, as Discord does
    const room = ui.messages.getBoundingClientRect().bottom - head.getBoundingClientRect().bottom;
    box.classList.toggle("up", menu.scrollHeight > room && head.getBoundingClientRect().top > room);
    document.addEventListener("click", outside, true);
  });
  box.append(head, menu);
  return box;
}
