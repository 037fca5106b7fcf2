-- minilock's implementation of python-redis-lock's Lock.reset: frees the
-- lock whoever holds it, and wakes one waiter.
-- KEYS[1]  the lock, lock:<name>
-- KEYS[2]  the signal, lock-signal:<name>
-- ARGV[1]  the caller's id (not checked)
-- ARGV[2]  how long an unconsumed signal lives, in milliseconds
-- Reply: 1 if there was a lock, 0 if not.
local lock, signal = KEYS[1], KEYS[2]
local signalTTL = ARGV[2]

local existed = redis.call('DEL', lock)
redis.call('DEL', signal)
redis.call('RPUSH', signal, 1)
redis.call('PEXPIRE', signal, signalTTL)
return existed
