-- minilock's implementation of Redisson's RLock release (unlockInnerAsync).
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's channel, redisson_lock__channel:{name}
-- KEYS[3]  this request's unlock latch: remembers the answer, so that a
--          retried request (same request id) gets the first answer again
-- ARGV[1]  the message to publish when the lock becomes free (0)
-- ARGV[2]  lease in milliseconds, renewed while holds remain
-- ARGV[3]  the caller, id:thread
-- ARGV[4]  PUBLISH or SPUBLISH
-- ARGV[5]  how long the latch lives, in milliseconds
-- Reply: nil if the caller does not hold the lock, 0 if it still holds it
-- (reentered), 1 if the lock is now free.
local lock, channel, latch = KEYS[1], KEYS[2], KEYS[3]
local message, lease, holder = ARGV[1], ARGV[2], ARGV[3]
local publish, latchTTL = ARGV[4], ARGV[5]

local earlier = redis.call('GET', latch)
if earlier then
  return tonumber(earlier)
end

if redis.call('HEXISTS', lock, holder) == 0 then
  return nil
end

local answer
if redis.call('HINCRBY', lock, holder, -1) > 0 then
  redis.call('PEXPIRE', lock, lease)
  answer = 0
else
  redis.call('DEL', lock)
  redis.call(publish, channel, message)
  answer = 1
end
redis.call('SET', latch, answer, 'PX', latchTTL)
return answer
