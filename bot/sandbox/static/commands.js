// Slash commands as typed text: "/command subcommand name:value name:value" read against the registered commands'
// schema (which command, which options and values, where the caret is), and option values as the bridge wants them.

import { state } from "./state.js";

// Discord's application command option types
const SUBCOMMAND = 1, GROUP = 2;
export const BOOLEAN = 5, USER = 6, CHANNEL = 7;

/** A subcommand or a group of them, rather than an option with a value. */
export function isSubcommand(option) {
  return option.type === SUBCOMMAND || option.type === GROUP;
}

/**
 * Read `text` as far as it goes. `stage` says where the caret is: "command" (typing the command's name, `prefix`),
 * "subcommand" (choosing among `choicesFrom`, `prefix`) or "options"; then `ok` is true, `path` names the command and
 * its subcommands, `schema` lists its options, `options` holds the values typed, `last` names the option whose value
 * is being typed (if any) and `stray` is text before the first option.
 */
export function parseCommand(text) {
  const parsed = { ok: false, path: [], schema: [], options: {}, last: null };
  if (!text.startsWith("/")) return parsed;
  const words = text.slice(1).split(" ");
  const commandName = words[0];
  const command = state.commands.find((c) => c.name === commandName);
  if (!command || words.length === 1) {
    parsed.stage = "command";
    parsed.prefix = commandName;
    return parsed;
  }
  parsed.path = [command.name];
  let schema = command.options || [];
  let index = 1;
  while (schema.some(isSubcommand)) {
    const word = words[index];
    const sub = schema.find((o) => o.name === word && isSubcommand(o));
    if (!sub || index === words.length - 1) {
      parsed.stage = "subcommand";
      parsed.prefix = word || "";
      parsed.choicesFrom = schema.filter(isSubcommand);
      return parsed;
    }
    parsed.path.push(sub.name);
    schema = sub.options || [];
    index++;
  }
  parsed.schema = schema;
  const rest = words.slice(index).join(" ");
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

/** The options to send: users and channels by id; with `lenient`, empty values left out. */
export function optionValues(parsed, lenient) {
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

/** `text` with the value of its last option `name` replaced by `value`. */
export function replaceLastValue(text, name, value) {
  const at = text.lastIndexOf(name + ":");
  return text.slice(0, at) + `${name}:${value} `;
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
