-- minilock's implementation of Redisson's lock watchdog renewal: one call
-- renews a batch of locks.
-- KEYS[i]    a lock hash
-- ARGV[1]    the new lease in milliseconds
-- ARGV[i+1]  the holder (id:thread) that KEYS[i] must still have
-- Reply: an array, element i 1 if KEYS[i] was renewed, 0 if the holder no
-- longer has it.
local lease = ARGV[1]
local renewed = {}
for i, lock in ipairs(KEYS) do
  local ok = 0
  if redis.call('HEXISTS', lock, ARGV[i + 1]) == 1 then
    redis.call('PEXPIRE', lock, lease)
    ok = 1
  end
  renewed[i] = ok
end
return renewed
