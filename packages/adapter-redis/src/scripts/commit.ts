import { CATALOGUE_FUNCTIONS } from "./catalogue-functions.js";
import { defineLuaScript } from "./lua-script.js";

/**
 * One change to a local thread, all of `LogChange`'s steps in one atomic step.
 * KEYS: record, events, head (info, messages, ids, system), then the new head's four keys when the change
 * makes one, then the four keys of the segment to reclaim (`LogChange.reclaim`, a landed reply's batches)
 * when there is one: it is deleted after the change when nothing references it, it is no head and it
 * continues none. ARGV: ifRevision or "", expected head, now, ttl, the caller's known revision or "", the
 * number of messages n, then per message its id and JSON, then a flag per message ("1" for a system message)
 * as one string, then the record's end (`LogChange.end`, "" to keep it); then, on a single server, the catalogue's entries and order keys end KEYS and ARGV
 * goes on with the record's id (sortable), its owner ("" kept, "-" none, "=<owner>") and its own expiry
 * key (likewise); then, only for a
 * change that does more than append: new head id or "", its base (JSON),
 * start and createdAt, metadata or "", context or "", event kind ("", checkpoint, rollback, other), event
 * JSON before the point, event JSON after it up to the revision, the point's segment (JSON), the record's
 * operations (JSON) or "".
 * Returns {"notfound"}, {"concurrency", revision}, {"headmoved"}, {"held", {stored JSON, …}} (messages the
 * head holds under appended ids: nothing was written; thread-core compares them and sends the rest), or {"ok",
 * revision, length, event JSON or nil, released head base or nil}, followed by the record's fields and
 * events when the record had moved past the caller's known revision.
 */
export const COMMIT = defineLuaScript(
  "commit",
  `${CATALOGUE_FUNCTIONS}
-- Only a local thread's record has a head (a saved state has none).
local record = redis.call('HMGET', KEYS[1], 'revision', 'head', 'length')
if not record[2] then return { 'notfound' } end
local revision = tonumber(record[1])
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= revision then return { 'concurrency', revision } end
if record[2] ~= ARGV[2] then return { 'headmoved' } end
local known = ARGV[5] == record[1]
local length = tonumber(record[3])
local count = tonumber(ARGV[6])
local last = 6 + 2 * count
local flags = ARGV[last + 1]
-- The record's end ("" keeps it): written with the length, on every path.
local record_end = ARGV[last + 2]
-- The catalogue's keys end KEYS when it is kept in this step (a single server): 6, 10 or 14 keys without
-- it (segments come in fours), 8, 12 or 16 with it.
local catalogue = #KEYS % 4 == 0
local c = last + 2
local catalogue_owner, catalogue_expiry = false, false
if catalogue then
  c = last + 5
  local owner, expiry = ARGV[last + 4], ARGV[last + 5]
  if owner == '-' then catalogue_owner = '' elseif owner ~= '' then catalogue_owner = string.sub(owner, 2) end
  if expiry == '-' then catalogue_expiry = '' elseif expiry ~= '' then catalogue_expiry = string.sub(expiry, 2) end
end
-- The rest of the change, when there is more than an append ("" where absent).
local new_head, metadata, context, kind = ARGV[c + 1] or '', ARGV[c + 5] or '', ARGV[c + 6] or '', ARGV[c + 7] or ''
local operations = ARGV[c + 11] or ''
local target = new_head ~= '' and 7 or 3
local first_offset = 0
-- The segment to reclaim follows the head's (and the new head's) keys.
local reclaim = target + 4
if #KEYS - (catalogue and 2 or 0) < reclaim + 3 then reclaim = false end

-- A plain append of one message, the most common change: the same steps as below without building tables.
if count == 1 and #ARGV == c and not reclaim then
  local stored = redis.call('HGET', KEYS[5], ARGV[7])
  if stored then return { 'held', { redis.call('LINDEX', KEYS[4], tonumber(string.match(stored, '^%d+'))) } } end
  local offset = redis.call('RPUSH', KEYS[4], ARGV[8]) - 1
  redis.call('HSET', KEYS[5], ARGV[7], offset)
  if flags == '1' then redis.call('RPUSH', KEYS[6], offset) end
  revision = revision + 1
  length = length + 1
  if record_end ~= '' then
    redis.call('HSET', KEYS[1], 'revision', revision, 'updatedAt', ARGV[3], 'length', length, 'end', record_end)
  else
    redis.call('HSET', KEYS[1], 'revision', revision, 'updatedAt', ARGV[3], 'length', length)
  end
  if catalogue then catalogue_commit(KEYS[7], KEYS[8], ARGV[last + 3], revision, ARGV[3], false, false) end
  expire_all(ARGV[4], 'extend', KEYS, 1, 6)
  if known then return { 'ok', revision, length, false, false } end
  return { 'ok', revision, length, false, false, redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1) }
end

-- Ids the current head holds already (a retry) are answered with their messages before anything is
-- written. thread-core sends each id once, and a new head is empty.
if new_head == '' and count > 0 then
  local held = {}
  for item = 1, count do
    local stored = redis.call('HGET', KEYS[5], ARGV[5 + 2 * item])
    -- The offset leads the value ("offset", or "offset:fingerprint" as older versions wrote it).
    if stored then held[#held + 1] = redis.call('LINDEX', KEYS[4], tonumber(string.match(stored, '^%d+'))) end
  end
  if #held > 0 then return { 'held', held } end
end

-- Pushes the messages and records each id's offset; returns the first one's offset.
local function push_messages(messages_key, ids_key)
  local messages, ids = {}, {}
  for index = 8, last, 2 do messages[#messages + 1] = ARGV[index] end
  local offset = push_all('RPUSH', messages_key, messages, 1) - count
  for item = 1, count do
    ids[#ids + 1] = ARGV[5 + 2 * item]
    ids[#ids + 1] = offset + item - 1
  end
  push_all('HSET', ids_key, ids, 1)
  return offset
end

local changed, point, released, event = false, '', false, false
local function point_at(info)
  local start = tonumber(redis.call('HGET', info, 'start'))
  return '{"segment":' .. ARGV[c + 10] .. ',"offset":' .. (length - start) .. ',"position":' .. length .. '}'
end
if new_head ~= '' then
  if kind == 'rollback' then
    point = point_at(KEYS[3])
    redis.call('HINCRBY', KEYS[3], 'refs', 1)
  end
  redis.call('HSET', KEYS[7], 'base', ARGV[c + 2], 'start', ARGV[c + 3], 'createdAt', ARGV[c + 4], 'refs', 1, 'live', 1)
  released = release_head(KEYS[3], KEYS[4], KEYS[5], KEYS[6])
  redis.call('HSET', KEYS[1], 'head', new_head)
  length = tonumber(ARGV[c + 3])
  changed = true
end
if count > 0 then
  first_offset = push_messages(KEYS[target + 1], KEYS[target + 2])
  local system = {}
  for item = 1, count do
    if string.byte(flags, item) == 49 then system[#system + 1] = first_offset + item - 1 end
  end
  push_all('RPUSH', KEYS[target + 3], system, 1)
  length = length + count
  changed = true
end
if kind == 'checkpoint' then
  point = point_at(KEYS[target])
  redis.call('HINCRBY', KEYS[target], 'refs', 1)
end
if changed or metadata ~= '' or context ~= '' or kind ~= '' or operations ~= '' then
  revision = revision + 1
  local fields = { 'revision', revision, 'updatedAt', ARGV[3], 'length', length }
  if metadata ~= '' then fields[#fields + 1] = 'metadata' fields[#fields + 1] = metadata end
  if context ~= '' then fields[#fields + 1] = 'context' fields[#fields + 1] = context end
  if operations ~= '' then fields[#fields + 1] = 'operations' fields[#fields + 1] = operations end
  if record_end ~= '' then fields[#fields + 1] = 'end' fields[#fields + 1] = record_end end
  redis.call('HSET', KEYS[1], unpack(fields))
  if catalogue then catalogue_commit(KEYS[#KEYS - 1], KEYS[#KEYS], ARGV[last + 3], revision, ARGV[3], catalogue_owner, catalogue_expiry) end
  if kind ~= '' then
    event = ARGV[c + 8] .. point .. ARGV[c + 9] .. revision .. '}'
    redis.call('RPUSH', KEYS[2], event)
  end
  expire_all(ARGV[4], 'extend', KEYS, 1, 2)
  expire_all(ARGV[4], 'extend', KEYS, target, target + 3)
  -- As release-segment with nothing to drop, for a segment without a base (none to release after it).
  if reclaim and redis.call('EXISTS', KEYS[reclaim]) == 1 then
    local segment = redis.call('HMGET', KEYS[reclaim], 'refs', 'live', 'base')
    if tonumber(segment[1] or '0') == 0 and not segment[2] and segment[3] == 'null' then
      redis.call('DEL', KEYS[reclaim], KEYS[reclaim + 1], KEYS[reclaim + 2], KEYS[reclaim + 3])
    end
  end
end
if known then return { 'ok', revision, length, event, released } end
return { 'ok', revision, length, event, released, redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1) }
`,
);
