import { createHash } from "node:crypto";

/** A Lua script run with EVALSHA, loaded with EVAL when the server answers NOSCRIPT. */
export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

/** Functions every script may use, placed before its body. */
const PRELUDE = `
local function push_all(command, key, values, first)
  -- unpack() is limited in how many values it spreads, so long batches are written in chunks.
  -- Returns the last chunk's reply (RPUSH: the list's new length), or nil when there was nothing to write.
  local reply
  for index = first, #values, 1000 do
    reply = redis.call(command, key, unpack(values, index, math.min(index + 999, #values)))
  end
  return reply
end
-- 'extend': the store's own keys live at least this long (a key without expiry gets one);
-- 'GT': keys of other threads live at least this long, but one without expiry keeps none.
local function expire_all(seconds, mode, keys, first, last)
  seconds = tonumber(seconds)
  if seconds <= 0 then return end
  for index = first, last do
    if mode == 'GT' then
      redis.call('EXPIRE', keys[index], seconds, 'GT')
    else
      local left = redis.call('TTL', keys[index])
      if left == -1 or (left >= 0 and left < seconds) then redis.call('EXPIRE', keys[index], seconds) end
    end
  end
end
local function release_head(info, messages, ids, system)
  -- The record stops pointing at this segment: drop its reference, and the segment with the last one.
  redis.call('HDEL', info, 'live')
  if redis.call('HINCRBY', info, 'refs', -1) > 0 then return false end
  local base = redis.call('HGET', info, 'base')
  redis.call('DEL', info, messages, ids, system)
  return base
end
`;

/** A script; `readOnly` ones are flagged `no-writes`, so Redis runs them on replicas and when out of memory. */
export function defineLuaScript(name: string, body: string, options: { readOnly?: boolean } = {}): LuaScript {
  const flags = options.readOnly ? "#!lua flags=no-writes\n" : "";
  const source = `${flags}${PRELUDE}\n${body.trim()}\n`;
  return { name, source, sha: createHash("sha1").update(source).digest("hex") };
}
