"""The Lua scripts. Each runs atomically on the server, so one append is one round trip and no
other client can interleave between the checks and the writes."""

from __future__ import annotations

# KEYS: 1 stream, 2 version counter, 3 idempotency key
# ARGV: 1 expected version (-1: any), 2 idempotency TTL (s), 3 idempotency key text,
#       4 event count, then (type, schema, payload) per event
# Returns {"ok"|"dup", "first:last"} or {"conflict", actual} or {"corrupt", detail}.
#
# Order matters: the idempotency key is checked first, so a retry returns its original result
# even after other writers moved the stream on. Every check happens before the first write, so
# a script that returns early has written nothing (Redis does not roll back scripts).
APPEND = """
local previous = redis.call('GET', KEYS[3])
if previous then
  return {'dup', previous}
end
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
local expected = tonumber(ARGV[1])
if expected >= 0 and expected ~= current then
  return {'conflict', tostring(current)}
end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local last_version = 0
if #last > 0 then
  last_version = tonumber(string.match(last[1][1], '^(%d+)-'))
end
if last_version ~= current then
  return {'corrupt', 'version counter ' .. current .. ' but last entry ' .. last_version}
end
local now = redis.call('TIME')
local at_ms = tostring(tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
local count = tonumber(ARGV[4])
for i = 0, count - 1 do
  local version = current + i + 1
  redis.call('XADD', KEYS[1], version .. '-0',
    'type', ARGV[5 + 3 * i], 'schema', ARGV[6 + 3 * i], 'data', ARGV[7 + 3 * i],
    'idem', ARGV[3], 'version', tostring(version), 'at_ms', at_ms)
end
redis.call('SET', KEYS[2], current + count)
local result = (current + 1) .. ':' .. (current + count)
redis.call('SET', KEYS[3], result, 'EX', tonumber(ARGV[2]))
return {'ok', result}
"""

# KEYS: 1 snapshot hash, 2 version counter
# ARGV: 1 version, 2 type name, 3 schema version, 4 payload
# Returns {"ok"} / {"older"} (a newer snapshot exists: kept) / {"ahead", current}.
SAVE_SNAPSHOT = """
local version = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if version > current then
  return {'ahead', tostring(current)}
end
local existing = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if existing > version then
  return {'older'}
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'type', ARGV[2], 'schema', ARGV[3],
  'data', ARGV[4])
return {'ok'}
"""
