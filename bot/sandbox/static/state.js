// What the page knows: the bridge's snapshot (who we are, the users, channels, messages and commands) kept up to
// date by its updates, and which channel is shown. One object shared by import: modules change its fields and never
// replace it.

export const state = {
  me: null,
  users: new Map(), // id -> user
  players: [],
  channels: new Map(), // id -> channel
  current: null, // the channel shown
  messages: new Map(), // id -> message JSON
  unread: new Set(),
  commands: [],
  dismissed: new Set(),
  cdn: "", // where custom emoji images are, as Discord's CDN
};

/** Order Discord ids (snowflakes: decimal strings of one 64-bit number) by age. */
export function compareIds(a, b) {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}
