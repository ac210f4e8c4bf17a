import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: record, events. ARGV: metadata as read (JSON) and re-encrypted, context likewise (both "" for a field
 * the rewrite leaves alone, which is then neither compared nor set), the end as read ("=<end>", "-" for none,
 * "" to leave it alone) and its replacement, then triples of an event's index, its
 * JSON as read and re-encrypted. Writes all of them, or nothing when any one is no longer stored exactly as
 * read (or the record is not a log); the revision and `updatedAt` stay. Returns 1 or 0.
 */
export const REWRITE_RECORD = defineLuaScript(
  "rewrite-record",
  `
local record = redis.call('HMGET', KEYS[1], 'kind', 'metadata', 'context', 'end')
if record[1] ~= 'log' then return 0 end
if ARGV[1] ~= '' and record[2] ~= ARGV[1] then return 0 end
if ARGV[3] ~= '' and record[3] ~= ARGV[3] then return 0 end
if ARGV[5] == '-' and record[4] then return 0 end
if string.sub(ARGV[5], 1, 1) == '=' and record[4] ~= string.sub(ARGV[5], 2) then return 0 end
for index = 7, #ARGV, 3 do
  if redis.call('LINDEX', KEYS[2], tonumber(ARGV[index])) ~= ARGV[index + 1] then return 0 end
end
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], 'metadata', ARGV[2]) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'context', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'end', ARGV[6]) end
for index = 7, #ARGV, 3 do redis.call('LSET', KEYS[2], tonumber(ARGV[index]), ARGV[index + 2]) end
return 1
`,
);
