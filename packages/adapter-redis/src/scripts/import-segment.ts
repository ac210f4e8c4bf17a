import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: a segment's four keys. ARGV: base (JSON), start, createdAt, first offset, ttl, "1" when the caller
 * compared the messages the segment holds at those offsets with its own (else ""), then per message: id,
 * JSON, "1" if a system message. Checks everything before writing. Returns {"missing", offset},
 * {"other", offset} (another message there), {"gap", offset}, {"live"} (a thread's head),
 * {"duplicate", offset}, {"compare"} (the segment holds messages at those offsets, which the caller did not
 * compare: nothing was written), or {"ok", 1 if it created the segment else 0}.
 */
export const IMPORT_SEGMENT = defineLuaScript(
  "import-segment",
  `
local from = tonumber(ARGV[4])
local exists = redis.call('EXISTS', KEYS[1]) == 1
if not exists and from ~= 0 then return { 'missing', from } end
local length = redis.call('LLEN', KEYS[2])
local live = exists and redis.call('HEXISTS', KEYS[1], 'live') == 1
local compared = ARGV[6] == '1'
local messages, ids, system, seen = {}, {}, {}, {}
for index = 7, #ARGV, 3 do
  local offset = from + (index - 7) / 3
  local field = ARGV[index]
  local stored = redis.call('HGET', KEYS[3], field)
  if offset < length then
    if not compared then return { 'compare' } end
    -- The offset leads the value ("offset", or "offset:fingerprint" as older versions wrote it).
    if not stored or tonumber(string.match(stored, '^%d+')) ~= offset then
      return { 'other', offset }
    end
  else
    if offset ~= length + #messages then return { 'gap', offset } end
    if live then return { 'live' } end
    if stored or seen[field] then return { 'duplicate', offset } end
    seen[field] = true
    messages[#messages + 1] = ARGV[index + 1]
    ids[#ids + 1] = field
    ids[#ids + 1] = offset
    if ARGV[index + 2] == '1' then system[#system + 1] = offset end
  end
end
if not exists then
  redis.call('HSET', KEYS[1], 'base', ARGV[1], 'start', ARGV[2], 'createdAt', ARGV[3], 'refs', 0)
end
push_all('RPUSH', KEYS[2], messages, 1)
push_all('HSET', KEYS[3], ids, 1)
push_all('RPUSH', KEYS[4], system, 1)
expire_all(ARGV[5], exists and 'GT' or 'extend', KEYS, 1, 4)
return { 'ok', exists and 0 or 1 }
`,
);
