import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: a segment's four keys. ARGV: how many references to drop (0: none, to delete a segment nothing
 * references). Deletes the segment when none is left and it is no thread's head; returns {0} (gone
 * already), {1} (kept) or {2, its base (JSON)}.
 */
export const RELEASE_SEGMENT = defineLuaScript(
  "release-segment",
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return { 0 } end
local drop = tonumber(ARGV[1])
-- HINCRBY by 0 would be sent as "-0", which Redis does not take for an integer.
local refs = drop > 0 and redis.call('HINCRBY', KEYS[1], 'refs', -drop) or tonumber(redis.call('HGET', KEYS[1], 'refs') or '0')
if refs > 0 or redis.call('HEXISTS', KEYS[1], 'live') == 1 then return { 1 } end
local base = redis.call('HGET', KEYS[1], 'base')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return { 2, base }
`,
);
