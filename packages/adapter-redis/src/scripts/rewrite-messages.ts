import { defineLuaScript } from "./lua-script.js";

/**
 * KEYS: a segment's messages list. ARGV: triples of own offset, the message's JSON as it was read, and its
 * re-encrypted JSON. Each message is replaced only where the list still holds exactly what was read; a
 * missing list or offset is left alone (LINDEX gives nil), never created. Returns 1 or 0 per triple.
 */
export const REWRITE_MESSAGES = defineLuaScript(
  "rewrite-messages",
  `
local done = {}
for index = 1, #ARGV, 3 do
  local offset = tonumber(ARGV[index])
  if redis.call('LINDEX', KEYS[1], offset) == ARGV[index + 1] then
    redis.call('LSET', KEYS[1], offset, ARGV[index + 2])
    done[#done + 1] = 1
  else
    done[#done + 1] = 0
  end
end
return done
`,
);
