/**
 * Lua functions that keep a scope's catalogue (catalogue-members.ts gives the member layout), placed in the
 * scripts that change records on a single server, where the catalogue's keys can join the record's script,
 * and in the catalogue's own script (catalogue-step.ts), which Redis Cluster runs in the catalogue's slot.
 * An entry is `[revision, owner or "", updated key, created key]`, and a fifth, the thread's own
 * `expiresAt` key, when it has one (entries written before the expiry index have four).
 */
export const CATALOGUE_FUNCTIONS = `
local CATALOGUE_NUL, CATALOGUE_KEY_END = string.char(0), string.char(0, 1)
-- The members an entry holds: id, last-change and creation positions in the scope's group and its owner's.
local function catalogue_members(sid, entry)
  local members = {}
  local groups = { '*' }
  if entry[2] ~= '' then groups[2] = '=' .. entry[2] end
  for _, group in ipairs(groups) do
    local start = group .. CATALOGUE_NUL
    members[#members + 1] = start .. 'i' .. CATALOGUE_NUL .. sid
    members[#members + 1] = start .. 'u' .. CATALOGUE_NUL .. entry[3] .. CATALOGUE_KEY_END .. sid
    members[#members + 1] = start .. 'c' .. CATALOGUE_NUL .. entry[4] .. CATALOGUE_KEY_END .. sid
  end
  -- The expiry index: the scope's group only, since a sweep asks for a scope's expired threads.
  if entry[5] and entry[5] ~= '' then
    members[#members + 1] = '*' .. CATALOGUE_NUL .. 'e' .. CATALOGUE_NUL .. entry[5] .. CATALOGUE_KEY_END .. sid
  end
  return members
end
-- An entry of the arguments (expiry "" for none): a thread without one keeps the four fields of before.
local function catalogue_entry(revision, owner, updated, created, expiry)
  if expiry == nil or expiry == '' then return { revision, owner, updated, created } end
  return { revision, owner, updated, created, expiry }
end
-- Moves a record's entry to \`entry\`: members it no longer has leave, new ones come, so an append moves
-- one or two members. An entry stored at a newer revision of the same record (same creation key) stays;
-- revision -1 places an entry only where none is. Returns 1 when the entry was written.
local function catalogue_put(entries, order, sid, entry)
  local stored = redis.call('HGET', entries, sid)
  local old = {}
  if stored then
    local previous = cjson.decode(stored)
    if entry[1] < 0 then return 0 end
    if previous[1] > entry[1] and previous[4] == entry[4] then return 0 end
    for _, member in ipairs(catalogue_members(sid, previous)) do old[member] = true end
  end
  local added = {}
  for _, member in ipairs(catalogue_members(sid, entry)) do
    if old[member] then
      old[member] = nil
    else
      added[#added + 1] = 0
      added[#added + 1] = member
    end
  end
  local removed = {}
  for member in pairs(old) do removed[#removed + 1] = member end
  if #removed > 0 then redis.call('ZREM', order, unpack(removed)) end
  if #added > 0 then redis.call('ZADD', order, unpack(added)) end
  redis.call('HSET', entries, sid, cjson.encode(entry))
  return 1
end
local function catalogue_remove(entries, order, sid)
  local stored = redis.call('HGET', entries, sid)
  if not stored then return 0 end
  redis.call('ZREM', order, unpack(catalogue_members(sid, cjson.decode(stored))))
  redis.call('HDEL', entries, sid)
  return 1
end
-- A commit's move: the last change becomes \`updated\`, the owner \`owner\` and the own expiry \`expiry\`
-- (each false: kept; expiry '' for none). A record the catalogue does not hold yet (written before it
-- existed) is left to the catalogue's build. An append, the common change, moves only the last-change
-- members: four calls, no table of members.
local function catalogue_commit(entries, order, sid, revision, updated, owner, expiry)
  local stored = redis.call('HGET', entries, sid)
  if not stored then return end
  local entry = cjson.decode(stored)
  if (owner and owner ~= entry[2]) or (expiry and expiry ~= (entry[5] or '')) then
    catalogue_put(entries, order, sid,
      catalogue_entry(revision, owner or entry[2], updated, entry[4], expiry or entry[5]))
    return
  end
  entry[1] = revision
  if entry[3] ~= updated then
    local old, new = entry[3] .. CATALOGUE_KEY_END .. sid, updated .. CATALOGUE_KEY_END .. sid
    local scope = '*' .. CATALOGUE_NUL .. 'u' .. CATALOGUE_NUL
    if entry[2] == '' then
      redis.call('ZREM', order, scope .. old)
      redis.call('ZADD', order, 0, scope .. new)
    else
      local own = '=' .. entry[2] .. CATALOGUE_NUL .. 'u' .. CATALOGUE_NUL
      redis.call('ZREM', order, scope .. old, own .. old)
      redis.call('ZADD', order, 0, scope .. new, 0, own .. new)
    end
    entry[3] = updated
  end
  redis.call('HSET', entries, sid, cjson.encode(entry))
end
`;
