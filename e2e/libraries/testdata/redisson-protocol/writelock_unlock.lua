-- minilock's implementation of Redisson's RReadWriteLock write release
-- (RedissonWriteLock.unlockInnerAsync).
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's channel, redisson_rwlock:{name}
-- KEYS[3]  this request's unlock latch
-- ARGV[1]  the message to publish (1, Redisson's READ_UNLOCK_MESSAGE)
-- ARGV[2]  lease in milliseconds, renewed while write holds remain
-- ARGV[3]  the caller as a writer, id:thread:write
-- ARGV[4]  PUBLISH or SPUBLISH
-- ARGV[5]  how long the latch lives, in milliseconds
-- Reply: nil if the caller does not hold the write lock, 0 if it still does
-- (reentered), 1 if its last write hold is gone: the lock is free, or
-- downgraded to the read holds the writer took meanwhile.
local lock, channel, latch = KEYS[1], KEYS[2], KEYS[3]
local message, lease, writer, publish, latchTTL = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

local earlier = redis.call('GET', latch)
if earlier then
  return tonumber(earlier)
end

local mode = redis.call('HGET', lock, 'mode')
if not mode then
  -- Nothing held: wake anyone still waiting, and report "not held".
  redis.call(publish, channel, message)
  return nil
end
if mode ~= 'write' or redis.call('HEXISTS', lock, writer) == 0 then
  return nil
end

local answer
if redis.call('HINCRBY', lock, writer, -1) > 0 then
  redis.call('PEXPIRE', lock, lease)
  answer = 0
else
  redis.call('HDEL', lock, writer)
  if redis.call('HLEN', lock) == 1 then
    -- Only "mode" is left.
    redis.call('DEL', lock)
    redis.call(publish, channel, message)
  else
    redis.call('HSET', lock, 'mode', 'read')
  end
  answer = 1
end
redis.call('SET', latch, answer, 'PX', latchTTL)
return answer
