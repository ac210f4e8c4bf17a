import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: record, events. ARGV: the caller's known revision and head (sortable text), or "" "". Returns {}
 * (no record), {"same"} when the record still has that revision and head, else { record fields (flat),
 * events }: one consistent snapshot.
 */
export const READ_RECORD = defineLuaScript(
  "read-record",
  `
if ARGV[1] ~= '' then
  local record = redis.call('HMGET', KEYS[1], 'revision', 'head')
  if record[1] == ARGV[1] and record[2] == ARGV[2] then return { 'same' } end
end
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return {} end
return { fields, redis.call('LRANGE', KEYS[2], 0, -1) }
`,
  { readOnly: true },
);
