import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: a segment's four keys. ARGV: how many references to drop. Deletes the segment when none is
 * left and it is no thread's head; returns {0} (gone already), {1} (kept) or {2, its base (JSON)}.
 */
export const RELEASE_SEGMENT = defineLuaScript(
  "release-segment",
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return { 0 } end
local refs = redis.call('HINCRBY', KEYS[1], 'refs', -tonumber(ARGV[1]))
if refs > 0 or redis.call('HEXISTS', KEYS[1], 'live') == 1 then return { 1 } end
local base = redis.call('HGET', KEYS[1], 'base')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return { 2, base }
`,
);
