import { CATALOGUE_FUNCTIONS } from "./catalogue-functions.js";
import { defineLuaScript } from "./lua-script.js";

/**
 * One change to a scope's catalogue on its own: what Redis Cluster runs in the catalogue's slot beside
 * a record's script, and what the build and repairs run on either. KEYS: entries, order, and on a single
 * server the record, so the step checks it in the same atomic step. ARGV: "put", "remove" or "prune", the
 * id (sortable), then for "put" the entry (revision, owner, updated key, created key, expiry key or ""),
 * for "prune" a member of the order set.
 * "put" with the record: writes only while the record is at that revision (else "moved").
 * "remove" with the record: removes only while there is no record (else "exists").
 * "prune": removes the member unless the id's entry holds it (a member a crash or an older writer left).
 * Returns "ok", "kept" (a newer entry stays), "moved" or "exists".
 */
export const CATALOGUE_STEP = defineLuaScript(
  "catalogue-step",
  `${CATALOGUE_FUNCTIONS}
local record = KEYS[3]
if ARGV[1] == 'remove' then
  if record and redis.call('EXISTS', record) == 1 then return 'exists' end
  catalogue_remove(KEYS[1], KEYS[2], ARGV[2])
  return 'ok'
end
if ARGV[1] == 'prune' then
  local stored = redis.call('HGET', KEYS[1], ARGV[2])
  if stored then
    for _, member in ipairs(catalogue_members(ARGV[2], cjson.decode(stored))) do
      if member == ARGV[3] then return 'kept' end
    end
  end
  redis.call('ZREM', KEYS[2], ARGV[3])
  return 'ok'
end
local revision = tonumber(ARGV[3])
if record and tonumber(redis.call('HGET', record, 'revision')) ~= revision then return 'moved' end
local entry = catalogue_entry(revision, ARGV[4], ARGV[5], ARGV[6], ARGV[7])
if catalogue_put(KEYS[1], KEYS[2], ARGV[2], entry) == 1 then return 'ok' end
return 'kept'
`,
);
