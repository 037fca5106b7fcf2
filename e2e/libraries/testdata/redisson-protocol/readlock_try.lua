-- minilock's implementation of Redisson's RReadWriteLock read acquire
-- (RedissonReadLock.tryLockInnerAsync).
-- KEYS[1]  the lock hash: field "mode" ("read" or "write"), and one field per
--          holder with its hold count
-- KEYS[2]  the caller's timeout prefix, {name}:id:thread:rwlock_timeout; each
--          read hold n has its own key <prefix>:n living for the lease
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller, id:thread
-- ARGV[3]  the caller's name as a writer, id:thread:write
-- Reply: nil when the read lock is taken, else the lock's PTTL.
local lock, prefix = KEYS[1], KEYS[2]
local lease, reader, asWriter = ARGV[1], ARGV[2], ARGV[3]

local mode = redis.call('HGET', lock, 'mode')

if not mode then
  redis.call('HSET', lock, 'mode', 'read')
  redis.call('HSET', lock, reader, 1)
  local hold = prefix .. ':1'
  redis.call('SET', hold, 1)
  redis.call('PEXPIRE', hold, lease)
  redis.call('PEXPIRE', lock, lease)
  return nil
end

-- Readers share; a writer may also read (its own lock, downgraded later).
local mayRead = mode == 'read'
  or (mode == 'write' and redis.call('HEXISTS', lock, asWriter) == 1)
if not mayRead then
  return redis.call('PTTL', lock)
end

local n = redis.call('HINCRBY', lock, reader, 1)
local hold = prefix .. ':' .. n
redis.call('SET', hold, 1)
redis.call('PEXPIRE', hold, lease)
-- The lock lives as long as its longest hold.
local left = redis.call('PTTL', lock)
if left < tonumber(lease) then
  left = tonumber(lease)
end
redis.call('PEXPIRE', lock, left)
return nil
