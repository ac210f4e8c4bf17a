import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: record. ARGV: id (JSON), type, now, state (JSON), ifRevision or "", ttl.
 * Returns {"log"} when the id holds a local thread, {"concurrency", revision}, or {"ok", revision}.
 */
export const PUT_STATE = defineLuaScript(
  "put-state",
  `
local record = redis.call('HMGET', KEYS[1], 'kind', 'revision')
if record[1] == 'log' then return { 'log' } end
local revision = tonumber(record[2]) or 0
if ARGV[5] ~= '' and tonumber(ARGV[5]) ~= revision then return { 'concurrency', revision } end
revision = revision + 1
redis.call('HSET', KEYS[1], 'kind', 'state', 'id', ARGV[1], 'type', ARGV[2], 'updatedAt', ARGV[3],
  'revision', revision, 'state', ARGV[4])
expire_all(ARGV[6], 'extend', KEYS, 1, 1)
return { 'ok', revision }
`,
);
