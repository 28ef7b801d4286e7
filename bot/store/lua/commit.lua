-- Guarded commit: check every precondition, then apply every write, atomically (one EVALSHA).
--
-- KEYS: every key the commit reads or writes.
-- ARGV[1]: JSON {"c": checks, "o": ops}
--   a check is [tag, kind, key index, field, expected]; kind is
--     "hget"   HGET key field           (a missing field reads as "")
--     "get"    GET key                  (a missing key reads as "")
--     "scard"  SCARD key                (as a decimal string)
--     "exists" EXISTS key               ("0" or "1")
--   or a bound, which passes while the count is below expected (a decimal string):
--     "scard<"  SCARD key
--     "zcount<" ZCOUNT key field +inf   (field is the lowest score counted, e.g. "(1700000000.5")
--   an op is [command, key index, arg...]: a write command run as redis.call(command, KEYS[i], arg...).
-- With "k" (the key index of a request's record) and "r" (its outcome), the commit is made at most once per request:
--   when the record exists already nothing is checked or written and {2, recorded outcome} is returned; otherwise the
--   outcome is recorded with the writes ("t" seconds), so a request sent again (its reply lost) finds it.
-- Returns {1} when applied, or {0, tag, actual} for the first check that failed (nothing is written then).
local spec = cjson.decode(ARGV[1])
if spec.k then
  local done = redis.call("GET", KEYS[spec.k])
  if done then
    return {2, done}
  end
end
for _, c in ipairs(spec.c) do
  local tag, kind, key = c[1], c[2], KEYS[c[3]]
  local actual
  if kind == "hget" then
    actual = redis.call("HGET", key, c[4])
  elseif kind == "get" then
    actual = redis.call("GET", key)
  elseif kind == "scard" then
    actual = tostring(redis.call("SCARD", key))
  elseif kind == "exists" then
    actual = tostring(redis.call("EXISTS", key))
  elseif kind == "scard<" then
    actual = redis.call("SCARD", key)
  elseif kind == "zcount<" then
    actual = redis.call("ZCOUNT", key, c[4], "+inf")
  else
    return redis.error_reply("unknown check kind " .. tostring(kind))
  end
  if type(actual) == "number" then
    if actual >= tonumber(c[5]) then
      return {0, tag, tostring(actual)}
    end
  else
    if actual == false then
      actual = ""
    end
    if actual ~= c[5] then
      return {0, tag, actual}
    end
  end
end
for _, o in ipairs(spec.o) do
  redis.call(o[1], KEYS[o[2]], unpack(o, 3))
end
if spec.k then
  redis.call("SET", KEYS[spec.k], spec.r, "EX", spec.t)
end
return {1}
