// The command box: the popup above it offers what fits where the caret is (commands and subcommands, then the
// options not given yet, then an option's choices: static choices, true/false, the users, the channels, or the bot's
// autocomplete answer); arrows, Tab and Enter pick; Enter sends a complete command as an `invoke` action.

import { el, toast, ui } from "./dom.js";
import { BOOLEAN, CHANNEL, USER, isSubcommand, optionValues, parseCommand, replaceLastValue } from "./commands.js";
import { send } from "./socket.js";
import { state } from "./state.js";

let suggestions = [];
let active = -1;
let autocompleteTimer = null;
let autocompleteKey = "";
let lastAutocomplete = { key: "", choices: [] };

/** Offer what fits the text in the box now (also when the commands or an autocomplete answer arrive). */
export function refreshSuggestions() {
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
      const subs = (c.options || []).filter(isSubcommand);
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
          text: replaceLastValue(text, spec.name, choice.value),
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

/** Make the command box work: suggestions while typing, keys to pick, Enter or submit to send. */
export function installCommandBox() {
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
}
