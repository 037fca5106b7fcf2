-- minilock's implementation of Redisson's RFairLock giving up a wait
-- (RedissonFairLock.acquireFailedAsync): the caller leaves the queue, and
-- everyone behind it moves up one place, one wait less each.
-- KEYS[1]  the queue of waiters (list)
-- KEYS[2]  the waiters' timeouts (sorted set)
-- ARGV[1]  the caller, id:thread
-- ARGV[2]  the wait a place in the queue counts for, in milliseconds
-- Reply: nil.
local queue, timeouts = KEYS[1], KEYS[2]
local me, patience = ARGV[1], tonumber(ARGV[2])

local waiters = redis.call('LRANGE', queue, 0, -1)
local behind = false
for _, waiter in ipairs(waiters) do
  if behind then
    redis.call('ZINCRBY', timeouts, -patience, waiter)
  elseif waiter == me then
    behind = true
  end
end
if behind then
  redis.call('ZREM', timeouts, me)
  redis.call('LREM', queue, 0, me)
end
return nil
