import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: record, events, head info. ARGV: id (JSON), type, createdAt, updatedAt, revision, metadata,
 * context, head, length, head base (JSON), head start, head createdAt, ttl, operations (JSON) or "", then the
 * events (JSON).
 * Returns "exists" when the id is taken, else "ok". The record holds the head's first reference.
 */
export const CREATE_LOG = defineLuaScript(
  "create-log",
  `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
redis.call('HSET', KEYS[1], 'kind', 'log', 'id', ARGV[1], 'type', ARGV[2], 'createdAt', ARGV[3],
  'updatedAt', ARGV[4], 'revision', ARGV[5], 'metadata', ARGV[6], 'context', ARGV[7], 'head', ARGV[8],
  'length', ARGV[9])
if ARGV[14] ~= '' then redis.call('HSET', KEYS[1], 'operations', ARGV[14]) end
redis.call('DEL', KEYS[2])
push_all('RPUSH', KEYS[2], ARGV, 15)
redis.call('HSET', KEYS[3], 'base', ARGV[10], 'start', ARGV[11], 'createdAt', ARGV[12], 'refs', 1, 'live', 1)
expire_all(ARGV[13], 'extend', KEYS, 1, 3)
return 'ok'
`,
);
