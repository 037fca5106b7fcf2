-- minilock's implementation of Redisson's RLock acquire (tryLockInnerAsync).
-- KEYS[1]  the lock: a hash, one field per holder (instance id:thread id),
--          whose value is how many times that holder entered the lock
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller, id:thread
-- Reply: nil when the caller now holds the lock, else the lock's PTTL.
local lock = KEYS[1]
local lease, holder = ARGV[1], ARGV[2]

local taken = redis.call('EXISTS', lock) == 1
if taken and redis.call('HEXISTS', lock, holder) == 0 then
  return redis.call('PTTL', lock)
end
redis.call('HINCRBY', lock, holder, 1)
redis.call('PEXPIRE', lock, lease)
return nil
