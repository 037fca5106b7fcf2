-- minilock's implementation of Redisson's RPermitExpirableSemaphore acquire
-- (tryAcquireAsync with permit ids and a lease deadline).
-- KEYS[1]  the semaphore: a string, the number of free permits
-- KEYS[2]  the permits handed out: a sorted set, permit id -> the client
--          time (ms) its lease ends, or ARGV[4] for a permit without one
-- KEYS[3]  the semaphore's channel, redisson_sc:{name}
-- ARGV[1]  how many permits to take
-- ARGV[2]  the client time (ms) the new permits' lease ends, or ARGV[4]
-- ARGV[3]  the client's current time in milliseconds
-- ARGV[4]  the score that means "never expires"
-- ARGV[5]  PUBLISH or SPUBLISH
-- ARGV[6..] the new permits' ids (raw bytes), one per permit
-- Reply: "OK" when the permits are taken; when too few are free, ":" and
-- the nearest lease end (the score as the sorted set writes it), or nil if
-- no handed-out permit will ever expire.
local sem, leases, channel = KEYS[1], KEYS[2], KEYS[3]
local want, leaseEnd, now = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local never, publish = ARGV[4], ARGV[5]

-- Take back the permits whose lease has ended, and say how many are free.
local ended = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
if #ended > 0 then
  for _, id in ipairs(ended) do
    redis.call('ZREM', leases, id)
  end
  local free = redis.call('INCRBY', sem, #ended)
  redis.call(publish, channel, free)
end

local free = tonumber(redis.call('GET', sem))
if free ~= nil and free >= want then
  redis.call('DECRBY', sem, want)
  for i = 6, #ARGV do
    redis.call('ZADD', leases, leaseEnd, ARGV[i])
  end
  return 'OK'
end

local nearest = redis.call('ZRANGE', leases, 0, 0, 'WITHSCORES')
if nearest[2] ~= nil and tonumber(nearest[2]) ~= tonumber(never) then
  return ':' .. nearest[2]
end
return nil
