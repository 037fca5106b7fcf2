-- minilock's implementation of Redisson's RFairLock acquire
-- (RedissonFairLock.tryLockInnerAsync): first come, first served.
-- KEYS[1]  the lock hash (holder -> hold count), as RLock's
-- KEYS[2]  the queue of waiters, a list of id:thread, oldest first
-- KEYS[3]  the waiters' timeouts, a sorted set id:thread -> the client time
--          (ms) after which the waiter counts as gone
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller, id:thread
-- ARGV[3]  how long a waiter may be silent before it is dropped, in ms
-- ARGV[4]  the client's current time in milliseconds
-- Reply: nil when the caller holds the lock; otherwise how long it should
-- wait, in milliseconds, joining the queue if it was not in it yet.
local lock, queue, timeouts = KEYS[1], KEYS[2], KEYS[3]
local lease, me = ARGV[1], ARGV[2]
local patience, now = tonumber(ARGV[3]), tonumber(ARGV[4])

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

-- A free lock goes to the head of the queue, or to anyone if nobody waits.
if redis.call('EXISTS', lock) == 0 then
  local head = redis.call('LINDEX', queue, 0)
  if not head or head == me then
    if head then
      redis.call('LPOP', queue)
      redis.call('ZREM', timeouts, me)
    end
    -- Everyone behind moves up one place: one wait less each.
    local rest = redis.call('ZRANGE', timeouts, 0, -1)
    for _, waiter in ipairs(rest) do
      redis.call('ZINCRBY', timeouts, -patience, waiter)
    end
    redis.call('HSET', lock, me, 1)
    redis.call('PEXPIRE', lock, lease)
    return nil
  end
end

-- Reentry.
if redis.call('HEXISTS', lock, me) == 1 then
  redis.call('HINCRBY', lock, me, 1)
  redis.call('PEXPIRE', lock, lease)
  return nil
end

-- Already queued: wait for the holder's time, as an estimate.
if redis.call('ZSCORE', timeouts, me) then
  local ttl = redis.call('PTTL', lock)
  if ttl < 0 then
    ttl = 0
  end
  return ttl
end

-- Join the queue behind the last waiter, or right behind the holder.
local last = redis.call('LINDEX', queue, -1)
local wait
if last and last ~= me then
  wait = tonumber(redis.call('ZSCORE', timeouts, last)) - now
else
  wait = redis.call('PTTL', lock)
end
if redis.call('ZADD', timeouts, wait + patience + now, me) == 1 then
  redis.call('RPUSH', queue, me)
end
return wait
