import { CATALOGUE_FUNCTIONS } from "./catalogue-functions.js";
import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: record, and on a single server the catalogue's entries and order. ARGV: id (JSON), type, now, state
 * (JSON), ifRevision or "", ttl, the catalogue entry without its revision (sortable id, owner, updated key,
 * created key).
 * Returns {"log"} when the id holds a local thread, {"concurrency", revision}, or {"ok", revision}.
 */
export const PUT_STATE = defineLuaScript(
  "put-state",
  `${CATALOGUE_FUNCTIONS}
local record = redis.call('HMGET', KEYS[1], 'kind', 'revision')
if record[1] == 'log' then return { 'log' } end
local revision = tonumber(record[2]) or 0
if ARGV[5] ~= '' and tonumber(ARGV[5]) ~= revision then return { 'concurrency', revision } end
revision = revision + 1
redis.call('HSET', KEYS[1], 'kind', 'state', 'id', ARGV[1], 'type', ARGV[2], 'updatedAt', ARGV[3],
  'revision', revision, 'state', ARGV[4])
if #KEYS == 3 then
  if revision == 1 then catalogue_remove(KEYS[2], KEYS[3], ARGV[7]) end
  catalogue_put(KEYS[2], KEYS[3], ARGV[7], { revision, ARGV[8], ARGV[9], ARGV[10] })
end
expire_all(ARGV[6], 'extend', KEYS, 1, 1)
return { 'ok', revision }
`,
);
