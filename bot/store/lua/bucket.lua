-- Token buckets of the rate limits: take one token from every bucket, or none if one is empty (one EVALSHA, so every
-- bot process shares the same buckets).
--
-- KEYS: the buckets (hashes: tokens, at).
-- ARGV[1]: now (seconds, the service's clock); then for each key i: ARGV[2i] its rate (tokens a second) and
--   ARGV[2i+1] its burst (the most tokens it holds). A new bucket starts full.
-- Returns {0} when the tokens were taken, or {i, wait} for the first empty bucket: its index (from 1) and the seconds
-- until it holds a token again (as a string: a Lua number would be cut to an integer). An idle bucket expires once it
-- would be full again.
local now = tonumber(ARGV[1])
local levels = {}
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local stored = redis.call("HMGET", key, "tokens", "at")
  local tokens, at = tonumber(stored[1]), tonumber(stored[2])
  if tokens == nil or at == nil then
    tokens, at = burst, now
  elseif now > at then -- another process's clock may be a little behind: then nothing refills
    tokens = math.min(burst, tokens + (now - at) * rate)
    at = now
  end
  if tokens < 1 - 1e-9 then -- (the margin absorbs the rounding of times and rates)
    return {i, string.format("%.17g", (1 - tokens) / rate)}
  end
  levels[i] = {tokens - 1, at, math.ceil(burst / rate * 1000) + 1000}
end
for i, key in ipairs(KEYS) do
  local level = levels[i]
  redis.call("HSET", key, "tokens", string.format("%.17g", level[1]), "at", string.format("%.17g", level[2]))
  redis.call("PEXPIRE", key, level[3])
end
return {0}
