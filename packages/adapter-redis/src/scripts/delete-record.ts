import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: record, events, head (info, messages, ids, system). ARGV: the head read before, or "" for a
 * state; ifRevision or "". Returns {"missing"}, {"moved"} (read again), {"concurrency", revision}
 * (nothing deleted), or {"ok", events, released head base or nil}; the caller then releases what the
 * events point at.
 */
export const DELETE_RECORD = defineLuaScript(
  "delete-record",
  `
local record = redis.call('HMGET', KEYS[1], 'kind', 'head', 'revision')
if not record[1] then return { 'missing' } end
if (record[2] or '') ~= ARGV[1] then return { 'moved' } end
local revision = tonumber(record[3]) or 0
if ARGV[2] ~= '' and tonumber(ARGV[2]) ~= revision then return { 'concurrency', revision } end
local events = redis.call('LRANGE', KEYS[2], 0, -1)
redis.call('DEL', KEYS[1], KEYS[2])
local released = false
if record[1] == 'log' and redis.call('EXISTS', KEYS[3]) == 1 then
  released = release_head(KEYS[3], KEYS[4], KEYS[5], KEYS[6])
end
return { 'ok', events, released }
`,
);
