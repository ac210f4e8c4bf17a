import { CATALOGUE_FUNCTIONS } from "./catalogue-functions.js";
import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: record, events, head (info, messages, ids, system), and on a single server the catalogue's entries
 * and order. ARGV: the head read before, or "" for a state; ifRevision or ""; the record's id (sortable). Returns {"missing"}, {"moved"} (read again), {"concurrency", revision}
 * (nothing deleted), or {"ok", events, released head base or nil}; the caller then releases what the
 * events point at.
 */
export const DELETE_RECORD = defineLuaScript(
  "delete-record",
  `${CATALOGUE_FUNCTIONS}
local record = redis.call('HMGET', KEYS[1], 'kind', 'head', 'revision')
if not record[1] then return { 'missing' } end
if (record[2] or '') ~= ARGV[1] then return { 'moved' } end
local revision = tonumber(record[3]) or 0
if ARGV[2] ~= '' and tonumber(ARGV[2]) ~= revision then return { 'concurrency', revision } end
local events = redis.call('LRANGE', KEYS[2], 0, -1)
redis.call('DEL', KEYS[1], KEYS[2])
if #KEYS == 8 then catalogue_remove(KEYS[7], KEYS[8], ARGV[3]) end
local released = false
if record[1] == 'log' and redis.call('EXISTS', KEYS[3]) == 1 then
  released = release_head(KEYS[3], KEYS[4], KEYS[5], KEYS[6])
end
return { 'ok', events, released }
`,
);
