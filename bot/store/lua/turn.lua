-- An AI turn's lease: one process of the bot at a time works on a turn (a game at one version).
--
-- KEYS[1]: the turn's lease key.
-- ARGV[1]: "claim" or "release"; ARGV[2]: the holder (a process's token); ARGV[3]: the lease's length in ms (claim).
-- claim: renews the lease of this holder, or takes a free one; returns 1 if the holder has it now, else 0.
-- release: deletes the lease if this holder has it; returns 1 if it did.
local holder = redis.call("GET", KEYS[1])
if ARGV[1] == "release" then
  if holder == ARGV[2] then
    return redis.call("DEL", KEYS[1])
  end
  return 0
end
if holder and holder ~= ARGV[2] then
  return 0
end
redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3])
return 1
