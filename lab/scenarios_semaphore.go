package lab

import (
	"strconv"
	"time"
)

// semaphoreScenarios are the races of a counting semaphore: a sorted set of
// holders scored by when each took its permit, whose stale entries every
// acquire removes.
var semaphoreScenarios = []*Scenario{
	{
		Name:    "semaphore-skew",
		Title:   "semaphore timed by the client's clock; one clock runs fast",
		Key:     "semaphore",
		Permits: 2,
		Expect:  Overbooked,
		Explain: `A two-permit semaphore as redis-semaphore's acquire script keeps it: a
			sorted set of holders scored by the time each acquired, where every acquire
			first removes the entries older than now minus the 10 s timeout, then adds
			itself if fewer than 2 remain. "now" is the client's own clock. C's runs 9 s
			fast, so 3 s in it judges A's and B's live permits stale, removes them and
			takes a permit: three holders of two permits. Redis in Action's fair
			semaphore removes stale entries by the client's clock too.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			c.skew = 9 * time.Second
			c.Note("has a clock that runs 9s fast")
			acquireClientTime(a, l.token())
			l.Wait(time.Second, "B comes along")
			acquireClientTime(b, l.token())
			l.Wait(2*time.Second, "A and B work on the resource")
			acquireClientTime(c, l.token())
		},
	},
	{
		Name:    "semaphore-server-time",
		Title:   "semaphore timed by the server's clock (TIME in the script)",
		Fixes:   "semaphore-skew",
		Key:     "semaphore",
		Permits: 2,
		Expect:  Safe,
		Explain: `The same script, but it reads the time with redis.call('TIME') instead
			of taking it from the client, so every acquire judges staleness by the one
			clock of the server, the clock the semaphore's own TTL runs on. C's fast
			clock no longer matters: it removes nothing, finds two live permits and is
			refused.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			c.skew = 9 * time.Second
			c.Note("has a clock that runs 9s fast")
			acquireServerTime(a, l.token())
			l.Wait(time.Second, "B comes along")
			acquireServerTime(b, l.token())
			l.Wait(2*time.Second, "A and B work on the resource")
			acquireServerTime(c, l.token())
		},
	},
}

// The semaphore recipes, after redis-semaphore's acquire script: KEYS[1] is
// the sorted set, ARGV the limit, the holder's id, the timeout in ms and,
// for the client-time version, the client's now in Unix ms.
const (
	semaphorePermits = 2
	semaphoreTimeout = 10 * time.Second

	acquireClientTimeScript = `local now=tonumber(ARGV[4]) ` + acquireBody
	acquireServerTimeScript = `local t=redis.call('time') local now=t[1]*1000+math.floor(t[2]/1000) ` + acquireBody
	acquireBody             = `redis.call('zremrangebyscore',KEYS[1],'-inf',now-ARGV[3]) if redis.call('zcard',KEYS[1])<tonumber(ARGV[1]) then redis.call('zadd',KEYS[1],now,ARGV[2]) redis.call('pexpire',KEYS[1],ARGV[3]) return 1 end return 0`
)

// acquireClientTime is redis-semaphore's acquire: the client sends its own
// clock's time. The client believes it holds a permit for the timeout.
func acquireClientTime(c *Client, id string) {
	now := strconv.FormatInt(c.Now().UnixMilli(), 10)
	if c.Do("EVAL", acquireClientTimeScript, 1, c.lock(), semaphorePermits, id, semaphoreTimeout.Milliseconds(), now).Int() == 1 {
		c.holds(semaphoreTimeout)
	}
}

// acquireServerTime is the fix: the script reads the server's clock.
func acquireServerTime(c *Client, id string) {
	if c.Do("EVAL", acquireServerTimeScript, 1, c.lock(), semaphorePermits, id, semaphoreTimeout.Milliseconds()).Int() == 1 {
		c.holds(semaphoreTimeout)
	}
}
