-- minilock's implementation of Redisson's RPermitExpirableSemaphore
-- release (tryReleaseAsync): gives one permit back by its id.
-- KEYS[1]  the semaphore: a string, the number of free permits
-- KEYS[2]  the semaphore's channel, redisson_sc:{name}
-- KEYS[3]  the permits handed out (sorted set id -> lease end)
-- ARGV[1]  the permit's id
-- ARGV[2]  how many permits it counts for (1)
-- ARGV[3]  the client's current time in milliseconds
-- ARGV[4]  PUBLISH or SPUBLISH
-- Reply: 1 if the permit was handed out and its lease had not ended; 0 if
-- it was not handed out (or already taken back), or its lease had ended
-- (it still goes back to the free count then).
local sem, channel, leases = KEYS[1], KEYS[2], KEYS[3]
local id, count, now, publish = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]

local leaseEnd = redis.call('ZSCORE', leases, id)
if not leaseEnd then
  return 0
end
redis.call('ZREM', leases, id)
local free = redis.call('INCRBY', sem, count)
redis.call(publish, channel, free)
if tonumber(leaseEnd) <= now then
  return 0
end
return 1
