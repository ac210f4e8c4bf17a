import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: record, events. ARGV: metadata as read (JSON) and re-encrypted, context likewise, then triples of an
 * event's index, its JSON as read and re-encrypted. Writes all of them, or nothing when any one is no longer
 * stored exactly as read (or the record is not a log); the revision and `updatedAt` stay. Returns 1 or 0.
 */
export const REWRITE_RECORD = defineLuaScript(
  "rewrite-record",
  `
local record = redis.call('HMGET', KEYS[1], 'kind', 'metadata', 'context')
if record[1] ~= 'log' or record[2] ~= ARGV[1] or record[3] ~= ARGV[3] then return 0 end
for index = 5, #ARGV, 3 do
  if redis.call('LINDEX', KEYS[2], tonumber(ARGV[index])) ~= ARGV[index + 1] then return 0 end
end
redis.call('HSET', KEYS[1], 'metadata', ARGV[2], 'context', ARGV[4])
for index = 5, #ARGV, 3 do redis.call('LSET', KEYS[2], tonumber(ARGV[index]), ARGV[index + 2]) end
return 1
`,
);
