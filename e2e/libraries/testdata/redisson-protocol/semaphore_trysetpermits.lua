-- minilock's implementation of Redisson's RSemaphore.trySetPermits
-- (also RPermitExpirableSemaphore.trySetPermits): sets the number of free
-- permits once, if the semaphore has none set yet.
-- KEYS[1]  the semaphore: a string, the number of free permits
-- KEYS[2]  its channel, redisson_sc:{name}
-- ARGV[1]  the number of permits
-- ARGV[2]  PUBLISH or SPUBLISH
-- Reply: 1 if set (and the count published), 0 if already set.
local sem, channel = KEYS[1], KEYS[2]
local permits, publish = ARGV[1], ARGV[2]

if redis.call('EXISTS', sem) == 1 then
  return 0
end
redis.call('SET', sem, permits)
redis.call(publish, channel, permits)
return 1
