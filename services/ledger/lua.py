"""The Lua scripts of the ledger in Redis (see redis_store.py): LOAD reads what a command
decides on, COMMIT applies one decided change; each is atomic and one round trip."""

LOAD = """\
#!lua flags=no-writes
-- Read the accounts, reservations and stored response one command decides on, atomically.
-- (One script instead of a MULTI of seven commands: the same snapshot, less client work.)
--
-- KEYS: 1 accounts hash, 2 balance hash, 3 held hash, 4 reservations hash,
--       5 reservation status hash, 6 stored response, 7 journal version counter,
--       8 cross-shard transfer status hash
-- ARGV: the key's transfer id ("" = none), account count, the account ids, then the
--       reservation ids
-- Returns {accounts, balances, held, reservations, statuses, {hash, response}, version,
-- transfer status}: one entry per id in the order given (nil where absent).
local count = tonumber(ARGV[2])
local ids, rids = {}, {}
for n = 3, count + 2 do ids[#ids + 1] = ARGV[n] end
for n = count + 3, #ARGV do rids[#rids + 1] = ARGV[n] end
local transfer = false
if ARGV[1] ~= "" then transfer = redis.call("HGET", KEYS[8], ARGV[1]) end
local function hmget(key, fields)
  if #fields == 0 then return {} end
  return redis.call("HMGET", key, unpack(fields))
end
return {hmget(KEYS[1], ids), hmget(KEYS[2], ids), hmget(KEYS[3], ids), hmget(KEYS[4], rids),
  hmget(KEYS[5], rids), redis.call("HMGET", KEYS[6], "h", "r"), redis.call("GET", KEYS[7]),
  transfer}
"""

COMMIT = """\
-- Apply one decided ledger change atomically, or refuse it without writing anything.
--
-- The journal is an event-store stream (services/shared/eventstore): entry id "<version>-0",
-- fields type, schema, data, idem, version, at_ms, and the version counter beside it, so
-- RedisEventStore.read/subscribe/version work on it unchanged.
--
-- KEYS: 1 journal stream, 2 accounts hash, 3 balance hash, 4 held hash, 5 reservations hash,
--       6 reservation status hash, 7 stored response, 8 journal version counter,
--       9 cross-shard transfer records hash, 10 their status hash, 11 pending transfers
--       (sorted set, score = when written, ms), 12.. one history stream per movement (same
--       order as the movements in ARGV).
-- ARGV: idempotency key, request hash, response, ttl seconds, expected journal version
--       (-1 = do not check), transfer whose status must be ARGV[7] ("" = none), that
--       status, transfer to write ("" = none), its new status, its record ("" = keep),
--       then counted groups:
--       funds (account, needed) | reservation checks (id, expected status, "" = absent) |
--       new accounts (id, bytes) | deltas (account, balance delta, held delta) |
--       reservation writes (id, status, bytes or "") | events (type, schema, data)
--       | movements (data)
-- Returns {"ok"} | {"dup", hash, response} | {"funds", account, needed, balance, held}
--       | {"stale", reason}
local key, request_hash, response, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local expected_version = tonumber(ARGV[5])

if key ~= "" then
  local stored = redis.call("HMGET", KEYS[7], "h", "r")
  if stored[1] then
    return {"dup", stored[1], stored[2]}
  end
end
local version = tonumber(redis.call("GET", KEYS[8]) or "0")
if expected_version >= 0 and version ~= expected_version then
  return {"stale", "journal version " .. version .. ", expected " .. expected_version}
end

if ARGV[6] ~= "" and (redis.call("HGET", KEYS[10], ARGV[6]) or "") ~= ARGV[7] then
  return {"stale", "transfer " .. ARGV[6] .. " is no longer '" .. ARGV[7] .. "'"}
end

local i = 11
local function group(width)
  local count = tonumber(ARGV[i])
  local first = i + 1
  i = i + 1 + count * width
  return first, count
end

local first, count = group(2)
local funds_first, funds_count = first, count
first, count = group(2)
for n = 0, count - 1 do
  local id, expected = ARGV[first + 2 * n], ARGV[first + 2 * n + 1]
  local actual = redis.call("HGET", KEYS[6], id) or ""
  if actual ~= expected then
    return {"stale", "reservation " .. id .. " is '" .. actual .. "', not '" .. expected .. "'"}
  end
end
local accounts_first, accounts_count = group(2)
for n = 0, accounts_count - 1 do
  if redis.call("HEXISTS", KEYS[2], ARGV[accounts_first + 2 * n]) == 1 then
    return {"stale", "account " .. ARGV[accounts_first + 2 * n] .. " was opened meanwhile"}
  end
end
for n = 0, funds_count - 1 do
  local id, needed = ARGV[funds_first + 2 * n], tonumber(ARGV[funds_first + 2 * n + 1])
  local balance = tonumber(redis.call("HGET", KEYS[3], id) or "0")
  local held = tonumber(redis.call("HGET", KEYS[4], id) or "0")
  if balance - held < needed then
    return {"funds", id, tostring(needed), tostring(balance), tostring(held)}
  end
end

-- No balance may leave +-(2^53 - 1) (Lua numbers are exact up to there; HINCRBY must never
-- overflow half-way through the writes). Checked before writing; the caller then re-decides.
local deltas_at = i + 1 + 3 * tonumber(ARGV[i])
local deltas_first, deltas_count = deltas_at + 1, tonumber(ARGV[deltas_at])
for n = 0, deltas_count - 1 do
  local id, delta = ARGV[deltas_first + 3 * n], tonumber(ARGV[deltas_first + 3 * n + 1])
  local after = tonumber(redis.call("HGET", KEYS[3], id) or "0") + delta
  if math.abs(after) > 9007199254740991 then
    return {"stale", "balance of " .. id .. " would leave the limit"}
  end
end

-- Every precondition holds: write, journal first (an XADD refused for a bad id would then
-- stop the script before anything else was written; Redis does not roll scripts back).
first, count = group(3)
local now = redis.call("TIME")
local at_ms = tostring(tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
for n = 0, count - 1 do
  version = version + 1
  redis.call("XADD", KEYS[1], version .. "-0", "type", ARGV[first + 3 * n],
    "schema", ARGV[first + 3 * n + 1], "data", ARGV[first + 3 * n + 2], "idem", key,
    "version", tostring(version), "at_ms", at_ms)
end
redis.call("SET", KEYS[8], version)
for n = 0, accounts_count - 1 do
  redis.call("HSET", KEYS[2], ARGV[accounts_first + 2 * n], ARGV[accounts_first + 2 * n + 1])
end
first, count = group(3)
for n = 0, count - 1 do
  local id = ARGV[first + 3 * n]
  local balance_delta, held_delta = ARGV[first + 3 * n + 1], ARGV[first + 3 * n + 2]
  if balance_delta ~= "0" then redis.call("HINCRBY", KEYS[3], id, balance_delta) end
  if held_delta ~= "0" then redis.call("HINCRBY", KEYS[4], id, held_delta) end
end
first, count = group(3)
for n = 0, count - 1 do
  local id, status, data = ARGV[first + 3 * n], ARGV[first + 3 * n + 1], ARGV[first + 3 * n + 2]
  redis.call("HSET", KEYS[6], id, status)
  if data ~= "" then redis.call("HSET", KEYS[5], id, data) end
end
first, count = group(1)
for n = 0, count - 1 do
  redis.call("XADD", KEYS[12 + n], "*", "data", ARGV[first + n])
end
if ARGV[8] ~= "" then
  if ARGV[10] ~= "" then redis.call("HSET", KEYS[9], ARGV[8], ARGV[10]) end
  redis.call("HSET", KEYS[10], ARGV[8], ARGV[9])
  if ARGV[9] == "pending" then
    redis.call("ZADD", KEYS[11], at_ms, ARGV[8])
  else
    redis.call("ZREM", KEYS[11], ARGV[8])
  end
end
if key ~= "" then
  redis.call("HSET", KEYS[7], "h", request_hash, "r", response)
  redis.call("EXPIRE", KEYS[7], ttl)
end
return {"ok"}
"""

REFUSE = """\
-- A destination shard refuses a transfer's credit step: record the refusal under the step's
-- key unless an outcome is recorded already (then that one stands). Returns the outcome.
--
-- KEYS: 1 the step's stored response. ARGV: ttl seconds.
if redis.call("HEXISTS", KEYS[1], "r") == 0 then
  redis.call("HSET", KEYS[1], "h", "", "r", "refused")
  redis.call("EXPIRE", KEYS[1], tonumber(ARGV[1]))
end
return redis.call("HGET", KEYS[1], "r")
"""
