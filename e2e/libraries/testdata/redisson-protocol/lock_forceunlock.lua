-- minilock's implementation of Redisson's RLock.forceUnlock
-- (forceUnlockAsync): frees the lock whoever holds it.
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's channel
-- ARGV[1]  the unlock message (0)
-- ARGV[2]  PUBLISH or SPUBLISH
-- Reply: 1 if there was a lock to free (and the message went out), else 0.
if redis.call('DEL', KEYS[1]) == 0 then
  return 0
end
redis.call(ARGV[2], KEYS[2], ARGV[1])
return 1
