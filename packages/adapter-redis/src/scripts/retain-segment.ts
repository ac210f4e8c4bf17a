import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: a segment's info, messages, ids, system. ARGV: how many references to add (0 only extends
 * the expiry), ttl (0: none; never shortens an expiry, never adds one to a key without). Returns 0
 * when the segment is gone, else 1.
 */
export const RETAIN_SEGMENT = defineLuaScript(
  "retain-segment",
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if tonumber(ARGV[1]) ~= 0 then redis.call('HINCRBY', KEYS[1], 'refs', ARGV[1]) end
expire_all(ARGV[2], 'GT', KEYS, 1, 4)
return 1
`,
);
