// The sandbox page: a Discord-like channel drawn from the emulator's Discord JSON, live over a websocket.
// No framework, no build step. The server (bot/sandbox/_bridge.py) turns our actions into emulator user actions
// and sends us the messages our current user may see.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const ui = {
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
  };
  const AVATAR_COLOURS = ["#5865f2", "#3ba55c", "#faa61a", "#ed4245", "#eb459e", "#747f8d"];
  const SUBCOMMAND = 1, GROUP = 2, STRING = 3, INTEGER = 4, BOOLEAN = 5, USER = 6, CHANNEL = 7, NUMBER = 10;
  const EPHEMERAL = 1 << 6, LOADING = 1 << 7;

  const state = {
    me: null,
    bot: null,
    users: new Map(), // id -> user
    players: [],
    channels: new Map(), // id -> channel
    home: null, // the main channel's id
    current: null, // the channel shown
    messages: new Map(), // id -> message JSON
    unread: new Set(),
    commands: [],
    dismissed: new Set(),
  };
  let socket = null;
  let nextRef = 1;
  const pending = new Map(); // ref -> {onDone, onError, onChoices}
  let retry = 0;

  // -- connection ----------------------------------------------------------------------------------------------------

  function connect() {
    const as = state.me ? state.me.name : new URLSearchParams(location.search).get("as") || "";
    const url = new URL("/sandbox/ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    if (as) url.searchParams.set("as", as);
    socket = new WebSocket(url);
    socket.onopen = () => {
      retry = 0;
      ui.conn.classList.add("up");
      ui.conn.title = "Connected";
    };
    socket.onmessage = (event) => receive(JSON.parse(event.data));
    socket.onclose = () => {
      ui.conn.classList.remove("up");
      ui.conn.title = "Disconnected: reconnecting";
      document.body.dataset.ready = "";
      for (const [, handlers] of pending) handlers.onError && handlers.onError("disconnected");
      pending.clear();
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 250 * retry);
    };
  }

  function send(op, fields, handlers) {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      toast("Not connected to the sandbox: wait a moment");
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
      case "snapshot":
        applySnapshot(update);
        break;
      case "message_create":
      case "message_update":
        upsertMessage(update.message, update.type === "message_create");
        break;
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
    }
  }

  function applySnapshot(snap) {
    state.me = snap.me;
    state.bot = snap.bot;
    state.users = new Map(snap.users.map((u) => [u.id, u]));
    state.players = snap.players;
    state.channels = new Map(snap.channels.map((c) => [c.id, c]));
    state.home = snap.channel_id;
    if (!state.current || !state.channels.has(state.current)) state.current = snap.channel_id;
    state.messages = new Map(snap.messages.map((m) => [m.id, m]));
    state.commands = snap.commands;
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

  // -- sidebar -------------------------------------------------------------------------------------------------------

  function renderUserSwitch() {
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

  function renderChannels() {
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

  function openChannel(id) {
    state.current = id;
    state.unread.delete(id);
    renderChannels();
    renderMessages();
  }

  // -- messages ------------------------------------------------------------------------------------------------------

  function channelMessages(channelId) {
    return [...state.messages.values()]
      .filter((m) => m.channel_id === channelId && !state.dismissed.has(m.id))
      .sort((a, b) => compareIds(a.id, b.id));
  }

  function renderMessages() {
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

  function upsertMessage(message, created) {
    state.messages.set(message.id, message);
    if (message.channel_id !== state.current) {
      if (created) {
        state.unread.add(message.channel_id);
        renderChannels();
      }
      return;
    }
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

  function removeMessageElement(id) {
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
      const content = el("div", { class: "content" });
      content.innerHTML = markdown(m.content);
      if (m.edited_timestamp) content.append(el("span", { class: "edited", title: m.edited_timestamp }, "(edited)"));
      node.append(content);
    }
    for (const embed of m.embeds || []) node.append(renderEmbed(embed));
    if (m.attachments && m.attachments.length) {
      const box = el("div", { class: "attachments" });
      for (const a of m.attachments) {
        const link = el("a", { class: "attachment", href: safeUrl(a.url), download: a.filename, target: "_blank" });
        const name = el("span", {});
        name.append(el("span", { class: "fname" }, a.filename), el("span", { class: "size" }, bytes(a.size)));
        link.append(el("span", { class: "file-icon" }, "📄"), name);
        box.append(link);
      }
      node.append(box);
    }
    if (m.components && m.components.length) node.append(renderComponents(m, m.components));
    if (m.thread) {
      const thread = state.channels.get(m.thread.id) || m.thread;
      const card = el("div", { class: "thread-card", "data-thread": m.thread.id });
      card.append(el("span", {}, "🧵"), el("span", { class: "tname" }, thread.name), el("span", {}, "›"));
      card.addEventListener("click", () => openChannel(m.thread.id));
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

  function renderEmbed(embed) {
    const box = el("div", { class: "embed" });
    if (typeof embed.color === "number") box.style.borderLeftColor = "#" + embed.color.toString(16).padStart(6, "0");
    if (embed.author && embed.author.name) box.append(el("div", { class: "embed-author" }, embed.author.name));
    if (embed.title) {
      const title = el("div", { class: "embed-title" });
      if (embed.url) {
        title.append(el("a", { href: safeUrl(embed.url), target: "_blank" }, embed.title));
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

  // -- components ----------------------------------------------------------------------------------------------------

  function renderComponents(message, components) {
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
      const link = el("a", { class: "btn s5", href: safeUrl(c.url), target: "_blank", rel: "noopener" });
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

  // -- the command box -----------------------------------------------------------------------------------------------
  //
  // The text is parsed as "/command subcommand name:value name:value"; the popup above the box offers what fits
  // where the caret is: commands and subcommands, then the options not given yet, then an option's choices
  // (static choices, true/false, the users, or the bot's autocomplete answer).

  let suggestions = [];
  let active = -1;
  let autocompleteTimer = null;
  let autocompleteKey = "";

  function parseCommand(text) {
    const parsed = { ok: false, path: [], node: null, schema: [], options: {}, last: null, tail: "", error: null };
    if (!text.startsWith("/")) return parsed;
    const words = text.slice(1).split(" ");
    const commandName = words[0];
    const command = state.commands.find((c) => c.name === commandName);
    parsed.partialPath = [commandName];
    if (!command || words.length === 1) {
      parsed.stage = "command";
      parsed.prefix = commandName;
      return parsed;
    }
    parsed.path = [command.name];
    let schema = command.options || [];
    let index = 1;
    while (schema.some((o) => o.type === SUBCOMMAND || o.type === GROUP)) {
      const word = words[index];
      const sub = schema.find((o) => o.name === word && (o.type === SUBCOMMAND || o.type === GROUP));
      if (!sub || index === words.length - 1) {
        parsed.stage = "subcommand";
        parsed.prefix = word || "";
        parsed.choicesFrom = schema.filter((o) => o.type === SUBCOMMAND || o.type === GROUP);
        return parsed;
      }
      parsed.path.push(sub.name);
      schema = sub.options || [];
      index++;
    }
    parsed.schema = schema;
    const rest = words.slice(index).join(" ");
    parsed.tail = rest;
    // split "a:1 b:two words" at the known option names
    const names = schema.map((o) => o.name).sort((a, b) => b.length - a.length);
    const pattern = new RegExp(`(?:^|\\s)(${names.map(escapeRegExp).join("|") || "(?!)"}):`, "g");
    const marks = [];
    let match;
    while ((match = pattern.exec(rest))) marks.push({ name: match[1], start: match.index, value: pattern.lastIndex });
    for (let i = 0; i < marks.length; i++) {
      const end = i + 1 < marks.length ? marks[i + 1].start : rest.length;
      parsed.options[marks[i].name] = rest.slice(marks[i].value, end).trim();
    }
    // the caret is in the last option's value unless that value is finished with a space
    const last = marks[marks.length - 1];
    if (last) {
      const value = rest.slice(last.value);
      parsed.last = value.trim() === "" || !/\s$/.test(value) ? last.name : null;
    }
    const before = marks.length ? rest.slice(0, marks[0].start).trim() : rest.trim();
    parsed.stray = before;
    parsed.stage = "options";
    parsed.ok = true;
    return parsed;
  }

  function refreshSuggestions() {
    const text = ui.input.value;
    const parsed = parseCommand(text);
    suggestions = [];
    let title = "";
    if (!text.startsWith("/")) {
      hideSuggestions();
      return;
    }
    if (parsed.stage === "command") {
      title = "Commands";
      for (const c of state.commands) {
        if (!c.name.startsWith(parsed.prefix)) continue;
        const subs = (c.options || []).filter((o) => o.type === SUBCOMMAND || o.type === GROUP);
        if (subs.length) {
          for (const s of subs) {
            suggestions.push({ name: `/${c.name} ${s.name}`, desc: s.description, text: `/${c.name} ${s.name} ` });
          }
        } else {
          suggestions.push({ name: `/${c.name}`, desc: c.description, text: `/${c.name} ` });
        }
      }
    } else if (parsed.stage === "subcommand") {
      title = `/${parsed.path.join(" ")}`;
      for (const s of parsed.choicesFrom) {
        if (!s.name.startsWith(parsed.prefix)) continue;
        suggestions.push({ name: s.name, desc: s.description, text: `/${parsed.path.join(" ")} ${s.name} ` });
      }
    } else if (parsed.stage === "options") {
      const base = `/${parsed.path.join(" ")}`;
      const spec = parsed.last ? parsed.schema.find((o) => o.name === parsed.last) : null;
      if (spec) {
        title = `${spec.name}: ${spec.description || ""}`;
        const typed = parsed.options[spec.name] || "";
        for (const choice of valueChoices(spec, typed, parsed)) {
          suggestions.push({
            name: choice.name,
            desc: choice.name === String(choice.value) ? "" : String(choice.value),
            text: replaceLastValue(text, parsed, spec.name, choice.value),
          });
        }
        if (!suggestions.length && spec.autocomplete) title += " (asking the bot…)";
      } else {
        title = `${base}: options`;
        for (const o of parsed.schema) {
          if (o.name in parsed.options) continue;
          const sep = text.endsWith(" ") ? "" : " ";
          suggestions.push({ name: o.name, desc: o.description, required: !!o.required, text: `${text}${sep}${o.name}:` });
        }
        suggestions.sort((a, b) => Number(b.required) - Number(a.required));
      }
    }
    active = -1;
    drawSuggestions(title);
  }

  function valueChoices(spec, typed, parsed) {
    const needle = typed.toLowerCase();
    if (spec.choices && spec.choices.length) {
      return spec.choices.filter((c) => c.name.toLowerCase().includes(needle) || String(c.value).includes(needle));
    }
    if (spec.type === BOOLEAN) {
      return ["true", "false"].filter((v) => v.startsWith(needle)).map((v) => ({ name: v, value: v }));
    }
    if (spec.type === USER) {
      return [...state.users.values()]
        .filter((u) => u.name.toLowerCase().includes(needle.replace(/^@/, "")))
        .map((u) => ({ name: "@" + u.name, value: u.name }));
    }
    if (spec.type === CHANNEL) {
      return [...state.channels.values()]
        .filter((c) => c.name.includes(needle.replace(/^#/, "")))
        .map((c) => ({ name: "#" + c.name, value: c.name }));
    }
    if (spec.autocomplete) {
      const key = JSON.stringify([parsed.path, parsed.options, spec.name]);
      if (key !== autocompleteKey) {
        autocompleteKey = key;
        askBot(parsed, spec.name, key);
        return [];
      }
      return lastAutocomplete.key === key ? lastAutocomplete.choices : [];
    }
    return [];
  }

  let lastAutocomplete = { key: "", choices: [] };
  function askBot(parsed, focused, key) {
    clearTimeout(autocompleteTimer);
    autocompleteTimer = setTimeout(() => {
      const options = optionValues(parsed, true);
      options[focused] = parsed.options[focused] || "";
      send(
        "autocomplete",
        { path: parsed.path, options, focused, channel: state.current },
        {
          onChoices: (choices) => {
            lastAutocomplete = { key, choices };
            if (autocompleteKey === key) refreshSuggestions();
          },
        }
      );
    }, 120);
  }

  function replaceLastValue(text, parsed, name, value) {
    const at = text.lastIndexOf(name + ":");
    return text.slice(0, at) + `${name}:${value} `;
  }

  function drawSuggestions(title) {
    if (!suggestions.length && !title) return hideSuggestions();
    const rows = [el("div", { class: "suggest-head" }, title)];
    suggestions.forEach((s, i) => {
      const row = el("div", { class: "suggestion" + (i === active ? " active" : ""), role: "option", "data-name": s.name });
      row.append(el("span", { class: "sname" }, s.name));
      if (s.required) row.append(el("span", { class: "req" }, "required"));
      if (s.desc) row.append(el("span", { class: "sdesc" }, s.desc));
      row.addEventListener("mousedown", (event) => {
        event.preventDefault();
        applySuggestion(i);
      });
      rows.push(row);
    });
    if (!suggestions.length) rows.push(el("div", { class: "suggest-foot" }, "Type a value, then Enter to send"));
    ui.suggest.replaceChildren(...rows);
    ui.suggest.hidden = false;
  }

  function hideSuggestions() {
    ui.suggest.hidden = true;
    suggestions = [];
    active = -1;
  }

  function applySuggestion(index) {
    const s = suggestions[index];
    if (!s) return;
    ui.input.value = s.text;
    ui.input.focus();
    refreshSuggestions();
  }

  function optionValues(parsed, lenient) {
    const values = {};
    for (const [name, raw] of Object.entries(parsed.options)) {
      const spec = parsed.schema.find((o) => o.name === name);
      if (!spec || (raw === "" && lenient)) continue;
      if (spec.type === USER) {
        const user = [...state.users.values()].find((u) => u.name === raw.replace(/^@/, "") || u.id === raw);
        values[name] = user ? user.id : raw;
      } else if (spec.type === CHANNEL) {
        const channel = [...state.channels.values()].find((c) => c.name === raw.replace(/^#/, "") || c.id === raw);
        values[name] = channel ? channel.id : raw;
      } else {
        values[name] = raw;
      }
    }
    return values;
  }

  function submit() {
    const text = ui.input.value.trim();
    if (!text) return;
    if (!text.startsWith("/")) {
      toast("The sandbox runs slash commands: type / to see them", "info");
      return;
    }
    const parsed = parseCommand(text + " ");
    if (!parsed.ok) {
      toast(`Not a complete command: ${text}`);
      return;
    }
    if (parsed.stray) {
      toast(`Write options as name:value (${parsed.schema.map((o) => o.name).join(", ") || "no options"})`);
      return;
    }
    const options = optionValues(parsed, false);
    const empty = Object.entries(options).filter(([, v]) => v === "").map(([k]) => k);
    if (empty.length) {
      toast(`Give a value for ${empty.join(", ")}`);
      return;
    }
    const missing = parsed.schema.filter((o) => o.required && !(o.name in options)).map((o) => o.name);
    if (missing.length) {
      toast(`Missing required options: ${missing.join(", ")}`);
      return;
    }
    ui.input.value = "";
    hideSuggestions();
    send("invoke", { path: parsed.path, options, channel: state.current }, {
      onError: () => {
        if (!ui.input.value) ui.input.value = text; // give the command back to fix it
      },
    });
  }

  ui.input.addEventListener("input", refreshSuggestions);
  ui.input.addEventListener("focus", () => {
    if (!state.commands.length) send("commands", {});
    refreshSuggestions();
  });
  ui.input.addEventListener("blur", () => setTimeout(hideSuggestions, 150));
  ui.input.addEventListener("keydown", (event) => {
    const open = !ui.suggest.hidden && suggestions.length;
    if (event.key === "ArrowDown" && open) {
      event.preventDefault();
      active = (active + 1) % suggestions.length;
      drawSuggestions(ui.suggest.querySelector(".suggest-head").textContent);
    } else if (event.key === "ArrowUp" && open) {
      event.preventDefault();
      active = (active - 1 + suggestions.length) % suggestions.length;
      drawSuggestions(ui.suggest.querySelector(".suggest-head").textContent);
    } else if (event.key === "Tab" && open) {
      event.preventDefault();
      applySuggestion(active >= 0 ? active : 0);
    } else if (event.key === "Escape") {
      hideSuggestions();
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (open && active >= 0) applySuggestion(active);
      else submit();
    }
  });
  ui.composer.addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });

  // -- text ----------------------------------------------------------------------------------------------------------

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  // Discord's markdown, the parts the bot uses: code, bold, italics, underline, strikethrough, spoilers, links,
  // headings, subtext, quotes, mentions, timestamps and custom emoji.
  function markdown(source) {
    const kept = [];
    const keep = (html) => `\u0000${kept.push(html) - 1}\u0000`;
    let text = String(source);
    text = text.replace(/```(?:[a-z0-9_+-]*\n)?([\s\S]*?)```/gi, (_, code) => keep(`<pre><code>${escapeHtml(code)}</code></pre>`));
    text = text.replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${escapeHtml(code)}</code>`));
    text = text.replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, (_, label, url) =>
      keep(`<a href="${escapeHtml(url)}" target="_blank" rel="noopener">${escapeHtml(label)}</a>`)
    );
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
    text = text.replace(/<a?:(\w+):\d+>/g, (_, name) => keep(`:${escapeHtml(name)}:`));
    text = escapeHtml(text);
    text = text.replace(/(^|\s)(https?:\/\/[^\s<]+)/g, (_, pre, url) => `${pre}<a href="${url}" target="_blank" rel="noopener">${url}</a>`);
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

  setInterval(() => {
    for (const node of document.querySelectorAll('.timestamp[data-style="R"]')) {
      node.textContent = relative(Number(node.dataset.ts));
    }
  }, 15000);

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

  function safeUrl(url) {
    return /^https?:\/\//i.test(url || "") ? url : "#";
  }

  function compareIds(a, b) {
    return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function avatar(user, size) {
    const name = user.name || "?";
    let hash = 0;
    for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    const node = el("div", { class: "avatar" + (size ? " " + size : ""), "aria-hidden": "true" });
    node.style.background = user.bot ? "#c8a165" : AVATAR_COLOURS[hash % AVATAR_COLOURS.length];
    node.textContent = user.bot ? "👑" : name[0].toUpperCase();
    return node;
  }

  function toast(text, kind) {
    const node = el("div", { class: "toast" + (kind ? " " + kind : ""), role: "alert" }, text);
    ui.toasts.append(node);
    setTimeout(() => node.remove(), 6000);
  }

  connect();
})();
