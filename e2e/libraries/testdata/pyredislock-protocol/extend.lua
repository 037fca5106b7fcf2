-- minilock's implementation of python-redis-lock's Lock.extend.
-- KEYS[1]  the lock, lock:<name>
-- KEYS[2]  the signal, lock-signal:<name> (unused here)
-- ARGV[1]  the caller's id
-- ARGV[2]  the new expire, in seconds
-- Reply: 0 extended, 1 the caller does not hold the lock, 2 the lock has no
-- expire to extend.
local lock = KEYS[1]
local id, expire = ARGV[1], ARGV[2]

if redis.call('GET', lock) ~= id then
  return 1
end
if redis.call('TTL', lock) == -1 then
  return 2
end
redis.call('EXPIRE', lock, expire)
return 0
