-- minilock's implementation of Redisson's RReadWriteLock read release
-- (RedissonReadLock.unlockInnerAsync).
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's channel, redisson_rwlock:{name}
-- KEYS[3]  the caller's timeout prefix, {name}:id:thread:rwlock_timeout
-- KEYS[4]  the prefix of every holder's timeout keys, {name}
-- KEYS[5]  this request's unlock latch
-- ARGV[1]  the message to publish when the lock becomes free (0)
-- ARGV[2]  the caller, id:thread
-- ARGV[3]  PUBLISH or SPUBLISH
-- ARGV[4]  how long the latch lives, in milliseconds
-- Reply: nil if the caller holds no read lock here, 0 if the lock is still
-- held (by anyone), 1 if it is now free.
local lock, channel, prefix, base, latch = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local message, reader, publish, latchTTL = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local earlier = redis.call('GET', latch)
if earlier then
  return tonumber(earlier)
end

local mode = redis.call('HGET', lock, 'mode')
if not mode then
  -- Nothing held: wake anyone still waiting, and report "not held".
  redis.call(publish, channel, message)
  return nil
end
if redis.call('HEXISTS', lock, reader) == 0 then
  return nil
end

local left = redis.call('HINCRBY', lock, reader, -1)
if left <= 0 then
  redis.call('HDEL', lock, reader)
end
redis.call('DEL', prefix .. ':' .. (left + 1))

local answer
if redis.call('HLEN', lock) > 1 then
  -- Others hold it: it lives as long as the longest of their read holds.
  local longest = -3
  local fields = redis.call('HGETALL', lock)
  for i = 1, #fields, 2 do
    local field, count = fields[i], tonumber(fields[i + 1])
    if field ~= 'mode' and count then
      for n = 1, count do
        local ttl = redis.call('PTTL', base .. ':' .. field .. ':rwlock_timeout:' .. n)
        if ttl > longest then
          longest = ttl
        end
      end
    end
  end
  if longest > 0 then
    redis.call('PEXPIRE', lock, longest)
    answer = 0
  elseif mode == 'write' then
    answer = 0
  end
end
if answer == nil then
  redis.call('DEL', lock)
  redis.call(publish, channel, message)
  answer = 1
end
redis.call('SET', latch, answer, 'PX', latchTTL)
return answer
