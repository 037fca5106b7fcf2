-- minilock's implementation of Redisson's RFairLock release
-- (RedissonFairLock.unlockInnerAsync): the unlock message goes only to the
-- waiter at the head of the queue, on its own channel <KEYS[4]>:<id:thread>.
-- KEYS[1]  the lock hash
-- KEYS[2]  the queue of waiters (list)
-- KEYS[3]  the waiters' timeouts (sorted set)
-- KEYS[4]  the lock's channel, redisson_lock__channel:{name}
-- KEYS[5]  this request's unlock latch
-- ARGV[1]  the unlock message (0)
-- ARGV[2]  lease in milliseconds, renewed while holds remain
-- ARGV[3]  the caller, id:thread
-- ARGV[4]  the client's current time in milliseconds
-- ARGV[5]  PUBLISH or SPUBLISH
-- ARGV[6]  how long the latch lives, in milliseconds
-- Reply: nil if the caller does not hold the lock, 0 if it still holds it
-- (reentered), 1 if the lock is free.
local lock, queue, timeouts, channel, latch = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local message, lease, me = ARGV[1], ARGV[2], ARGV[3]
local now, publish, latchTTL = tonumber(ARGV[4]), ARGV[5], ARGV[6]

local earlier = redis.call('GET', latch)
if earlier then
  return tonumber(earlier)
end

-- Drop the waiters at the head of the queue whose time has passed.
while true do
  local head = redis.call('LINDEX', queue, 0)
  if not head then
    break
  end
  local deadline = tonumber(redis.call('ZSCORE', timeouts, head))
  if deadline ~= nil and deadline > now then
    break
  end
  redis.call('ZREM', timeouts, head)
  redis.call('LPOP', queue)
end

local function wakeHead()
  local head = redis.call('LINDEX', queue, 0)
  if head then
    redis.call(publish, channel .. ':' .. head, message)
  end
end

local answer
if redis.call('EXISTS', lock) == 0 then
  -- Already free (expired, or forced): make sure the next one hears of it.
  wakeHead()
  answer = 1
elseif redis.call('HEXISTS', lock, me) == 0 then
  return nil
elseif redis.call('HINCRBY', lock, me, -1) > 0 then
  redis.call('PEXPIRE', lock, lease)
  answer = 0
else
  redis.call('DEL', lock)
  wakeHead()
  answer = 1
end
redis.call('SET', latch, answer, 'PX', latchTTL)
return answer
