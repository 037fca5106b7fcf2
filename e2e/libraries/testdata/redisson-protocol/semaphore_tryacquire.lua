-- minilock's implementation of Redisson's RSemaphore acquire
-- (tryAcquireAsync0): takes ARGV[1] permits if that many are free.
-- KEYS[1]  the semaphore: a string, the number of free permits
-- ARGV[1]  how many permits to take
-- Reply: 1 if taken, 0 if not enough are free (or none were ever set).
local free = tonumber(redis.call('GET', KEYS[1]))
local want = tonumber(ARGV[1])
if free == nil or free < want then
  return 0
end
redis.call('DECRBY', KEYS[1], want)
return 1
