import { defineLuaScript } from "./lua-script.js";

/**
 * One change to a local thread, all of `LogChange`'s steps in one atomic step.
 * KEYS: record, events, head (info, messages, ids, system), target (the new head's four keys, or the
 * head's again). ARGV: ifRevision or "", expected head, now, ttl, new head id or "", its base (JSON),
 * start and createdAt, metadata or "", context or "", event kind ("", checkpoint, rollback, other),
 * event JSON before the point, event JSON after it up to the revision, the point's segment (JSON),
 * then per message: id, fingerprint, JSON, "1" if a system message.
 * Returns {"notfound"}, {"concurrency", revision}, {"headmoved"}, {"conflict", item} or
 * {"ok", record fields, events, per item its input index or the stored JSON, released head base or nil}.
 */
export const COMMIT = defineLuaScript(
  "commit",
  `
local record = redis.call('HMGET', KEYS[1], 'kind', 'revision', 'head', 'length')
if record[1] ~= 'log' then return { 'notfound' } end
local revision = tonumber(record[2])
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= revision then return { 'concurrency', revision } end
if record[3] ~= ARGV[2] then return { 'headmoved' } end
local length = tonumber(record[4])
local new_head = ARGV[5] ~= ''
local used = new_head and 0 or redis.call('LLEN', KEYS[8])

-- Plan the append; every conflict is found before anything is written.
local results, batch, messages, ids, system = {}, {}, {}, {}, {}
for index = 15, #ARGV, 4 do
  local item = (index - 11) / 4
  local field, fingerprint = ARGV[index], ARGV[index + 1]
  local stored = (not new_head) and redis.call('HGET', KEYS[9], field)
  local earlier = batch[field]
  if stored then
    local separator = string.find(stored, ':', 1, true)
    if string.sub(stored, separator + 1) ~= fingerprint then return { 'conflict', item } end
    results[item] = redis.call('LINDEX', KEYS[8], tonumber(string.sub(stored, 1, separator - 1)))
  elseif earlier then
    if earlier[1] ~= fingerprint then return { 'conflict', item } end
    results[item] = earlier[2]
  else
    local offset = used + #messages
    batch[field] = { fingerprint, item }
    messages[#messages + 1] = ARGV[index + 2]
    ids[#ids + 1] = field
    ids[#ids + 1] = offset .. ':' .. fingerprint
    if ARGV[index + 3] == '1' then system[#system + 1] = offset end
    results[item] = item
  end
end

local changed, point, released = false, '', false
local function point_at(info)
  local start = tonumber(redis.call('HGET', info, 'start'))
  return '{"segment":' .. ARGV[14] .. ',"offset":' .. (length - start) .. ',"position":' .. length .. '}'
end
if new_head then
  if ARGV[11] == 'rollback' then
    point = point_at(KEYS[3])
    redis.call('HINCRBY', KEYS[3], 'refs', 1)
  end
  redis.call('HSET', KEYS[7], 'base', ARGV[6], 'start', ARGV[7], 'createdAt', ARGV[8], 'refs', 1, 'live', 1)
  released = release_head(KEYS[3], KEYS[4], KEYS[5], KEYS[6])
  redis.call('HSET', KEYS[1], 'head', ARGV[5])
  length = tonumber(ARGV[7])
  changed = true
end
if #messages > 0 then
  push_all('RPUSH', KEYS[8], messages, 1)
  push_all('HSET', KEYS[9], ids, 1)
  push_all('RPUSH', KEYS[10], system, 1)
  length = length + #messages
  changed = true
end
if ARGV[11] == 'checkpoint' then
  point = point_at(KEYS[7])
  redis.call('HINCRBY', KEYS[7], 'refs', 1)
end
if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'metadata', ARGV[9]) changed = true end
if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'context', ARGV[10]) changed = true end
if ARGV[11] ~= '' then changed = true end
if changed then
  revision = revision + 1
  redis.call('HSET', KEYS[1], 'revision', revision, 'updatedAt', ARGV[3], 'length', length)
  if ARGV[11] ~= '' then redis.call('RPUSH', KEYS[2], ARGV[12] .. point .. ARGV[13] .. revision .. '}') end
  expire_all(ARGV[4], 'extend', KEYS, 1, 2)
  expire_all(ARGV[4], 'extend', KEYS, 7, 10)
end
return { 'ok', redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1), results, released }
`,
);
