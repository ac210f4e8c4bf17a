import { defineLuaScript } from "./lua-script.js";

/** KEYS: record, events. Returns {} or { record fields (flat), events }, one consistent snapshot. */
export const READ_RECORD = defineLuaScript(
  "read-record",
  `
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return {} end
return { fields, redis.call('LRANGE', KEYS[2], 0, -1) }
`,
  { readOnly: true },
);
