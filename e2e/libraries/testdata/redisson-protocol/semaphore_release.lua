-- minilock's implementation of Redisson's RSemaphore.release
-- (releaseAsync): gives permits back and announces the new count, which
-- wakes the waiters subscribed to the channel.
-- KEYS[1]  the semaphore: a string, the number of free permits
-- KEYS[2]  its channel, redisson_sc:{name}
-- ARGV[1]  how many permits to give back
-- ARGV[2]  PUBLISH or SPUBLISH
-- Reply: nil.
local free = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call(ARGV[2], KEYS[2], free)
return nil
