/**
 * The least an append must do to be atomic and idempotent: check the revision and the message id, push and
 * bump the revision, in one script. The floor under any store that promises what skein's append does.
 */
export const ATOMIC_APPEND = `
local record = redis.call('HMGET', KEYS[1], 'revision')
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= tonumber(record[1] or 0) then return { 'concurrency' } end
if redis.call('HSETNX', KEYS[3], ARGV[2], 1) == 0 then return { 'seen' } end
redis.call('RPUSH', KEYS[2], ARGV[3])
return { 'ok', redis.call('HINCRBY', KEYS[1], 'revision', 1) }
`;
