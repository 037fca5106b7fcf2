-- minilock's implementation of Redisson's RReadWriteLock write acquire
-- (RedissonWriteLock.tryLockInnerAsync).
-- KEYS[1]  the lock hash (field "mode", and the holders' counts)
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller as a writer, id:thread:write
-- Reply: nil when the caller holds the write lock, else the lock's PTTL.
local lock = KEYS[1]
local lease, writer = ARGV[1], ARGV[2]

local mode = redis.call('HGET', lock, 'mode')
if not mode then
  redis.call('HSET', lock, 'mode', 'write')
  redis.call('HSET', lock, writer, 1)
  redis.call('PEXPIRE', lock, lease)
  return nil
end
if mode == 'write' and redis.call('HEXISTS', lock, writer) == 1 then
  -- Reentry: one more hold, one more lease on top of what is left.
  redis.call('HINCRBY', lock, writer, 1)
  redis.call('PEXPIRE', lock, redis.call('PTTL', lock) + tonumber(lease))
  return nil
end
return redis.call('PTTL', lock)
