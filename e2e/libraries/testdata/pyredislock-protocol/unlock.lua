-- minilock's implementation of python-redis-lock's release (Lock.release).
-- KEYS[1]  the lock, lock:<name>: a string holding the holder's id
-- KEYS[2]  the signal, lock-signal:<name>: a list waiters BLPOP on
-- ARGV[1]  the caller's id
-- ARGV[2]  how long an unconsumed signal lives, in milliseconds
-- Reply: 0 released (one waiter, if any, is woken), 1 the caller does not
-- hold the lock.
local lock, signal = KEYS[1], KEYS[2]
local id, signalTTL = ARGV[1], ARGV[2]

if redis.call('GET', lock) ~= id then
  return 1
end
-- Exactly one element on the list: one release wakes one waiter.
redis.call('DEL', signal)
redis.call('RPUSH', signal, 1)
redis.call('PEXPIRE', signal, signalTTL)
redis.call('DEL', lock)
return 0
