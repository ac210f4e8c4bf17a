import { CATALOGUE_FUNCTIONS } from "./catalogue-functions.js";
import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: record, events, head info, and on a single server the catalogue's entries and order. ARGV: id
 * (JSON), type, createdAt, updatedAt, revision, metadata, context, head, length, head base (JSON), head start,
 * head createdAt, ttl, operations (JSON) or "", the catalogue entry (sortable id, owner, updated key, created
 * key, expiry key or ""), the record's end or "", then the events (JSON).
 * Returns "exists" when the id is taken, else "ok". The record holds the head's first reference.
 */
export const CREATE_LOG = defineLuaScript(
  "create-log",
  `${CATALOGUE_FUNCTIONS}
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
redis.call('HSET', KEYS[1], 'kind', 'log', 'id', ARGV[1], 'type', ARGV[2], 'createdAt', ARGV[3],
  'updatedAt', ARGV[4], 'revision', ARGV[5], 'metadata', ARGV[6], 'context', ARGV[7], 'head', ARGV[8],
  'length', ARGV[9])
if ARGV[14] ~= '' then redis.call('HSET', KEYS[1], 'operations', ARGV[14]) end
if ARGV[20] ~= '' then redis.call('HSET', KEYS[1], 'end', ARGV[20]) end
redis.call('DEL', KEYS[2])
push_all('RPUSH', KEYS[2], ARGV, 21)
if #KEYS == 5 then
  -- No record was here, so an entry under this id is a leftover: the new record's replaces it.
  catalogue_remove(KEYS[4], KEYS[5], ARGV[15])
  catalogue_put(KEYS[4], KEYS[5], ARGV[15], catalogue_entry(tonumber(ARGV[5]), ARGV[16], ARGV[17], ARGV[18], ARGV[19]))
end
redis.call('HSET', KEYS[3], 'base', ARGV[10], 'start', ARGV[11], 'createdAt', ARGV[12], 'refs', 1, 'live', 1)
expire_all(ARGV[13], 'extend', KEYS, 1, 3)
return 'ok'
`,
);
