package lab

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// The scenarios: each broken recipe, followed by the fixes that repair it.
// A scenario scripts who sends what and when time passes; what a client
// concludes from a reply is the recipe's own logic, in the helpers below.
var scenarios = slices.Concat(lockScenarios, waitScenarios, semaphoreScenarios, streamScenarios)

// lockScenarios are the races of taking and releasing a lock.
var lockScenarios = []*Scenario{
	{
		Name:   "setnx-expire",
		Title:  "SETNX, then EXPIRE; the client crashes in between",
		Key:    "lock",
		Expect: NeverFreed,
		Explain: `The old recipe takes the lock with SETNX and gives it a timeout with a
			separate EXPIRE. A client that dies between the two leaves a key with no TTL
			that nobody will ever delete, so every later SETNX fails. Since Redis 2.6.12
			SET takes NX and EX/PX together, which closes the gap (Redis docs: SET).`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			setnxExpire(a, 10*time.Second, func() { a.Crash("before sending EXPIRE lock 10") })
			l.Wait(30*time.Second, "the lock should have timed out long ago")
			setnxExpire(b, 10*time.Second, nil)
			l.Wait(time.Hour, "B retries later")
			setnxExpire(b, 10*time.Second, nil)
		},
	},
	{
		Name:   "set-nx-px",
		Title:  "one SET NX PX with a random token",
		Fixes:  "setnx-expire",
		Key:    "lock",
		Expect: Safe,
		Explain: `SET with NX and PX creates the key and its TTL in one command, so a
			client that crashes right after taking the lock blocks the others for one TTL
			at most. The value is a random token, which a safe release needs (see
			token-release). This is the single-instance lock of the Redis docs' SET and
			distributed-locks pages.`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			setNXPX(a, l.token(), 10*time.Second)
			a.Crash("while holding the lock")
			l.Wait(30*time.Second, "A never comes back")
			setNXPX(b, l.token(), 10*time.Second)
		},
	},
	{
		Name:   "del-after-expiry",
		Title:  "SET NX EX, released with a plain DEL after the lock expired",
		Key:    "lock",
		Expect: TwoHolders,
		Explain: `A takes the lock with SET lock 1 NX EX 10 but works for 15 s, so its lock
			expires and B takes it. When A finishes it releases with DEL, which cannot
			tell whose lock it deletes: it deletes B's, and C takes the lock while B still
			holds it. The Redis docs' distributed-locks page warns of exactly this.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			setNXEX(a, "1", 10*time.Second)
			l.Wait(12*time.Second, "A works on the resource, past its TTL")
			setNXEX(b, "1", 10*time.Second)
			l.Wait(3*time.Second, "A finishes its work")
			a.Do("DEL", "lock")
			a.released()
			l.Wait(time.Second, "C comes along")
			setNXEX(c, "1", 10*time.Second)
		},
	},
	{
		Name:   "token-release",
		Title:  "random token, released by a Lua compare-and-delete",
		Fixes:  "del-after-expiry",
		Key:    "lock",
		Expect: Safe,
		Explain: `The same timing, but each client stores its own random token and
			releases with the script from the Redis docs' distributed-locks page: delete
			the key only if it still holds my token. A's late release finds B's token and
			deletes nothing, so C is refused while B holds the lock.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			ta := l.token()
			setNXPX(a, ta, 10*time.Second)
			l.Wait(12*time.Second, "A works on the resource, past its TTL")
			setNXPX(b, l.token(), 10*time.Second)
			l.Wait(3*time.Second, "A finishes its work")
			luaRelease(a, ta)
			l.Wait(time.Second, "C comes along")
			setNXPX(c, l.token(), 10*time.Second)
		},
	},
	{
		Name:   "get-then-del",
		Title:  "release with GET, compare, then DEL: two commands",
		Key:    "lock",
		Expect: TwoHolders,
		Explain: `Checking the token with GET and deleting with DEL takes two commands,
			and anything can happen between them. A's GET sees its own token just before
			its lock expires; its DEL arrives 0.2 s later, after B took the lock, and
			deletes B's lock. C then takes the lock while B still holds it.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			ta := l.token()
			setNXPX(a, ta, 10*time.Second)
			l.Wait(9900*time.Millisecond, "A works on the resource")
			if a.Do("GET", "lock").Str() == ta {
				l.Wait(200*time.Millisecond, "A's DEL is held up: a network hiccup")
				setNXPX(b, l.token(), 10*time.Second)
				a.Do("DEL", "lock")
			}
			a.released()
			setNXPX(c, l.token(), 10*time.Second)
		},
	},
	{
		Name:   "lua-release",
		Title:  "compare and delete in one EVAL",
		Fixes:  "get-then-del",
		Key:    "lock",
		Expect: Safe,
		Explain: `The same interleaving with the GET and the DEL inside one Lua script.
			minilock runs a script start to finish on its single data goroutine, so no
			command can land between the script's GET and its DEL: A's late release finds
			B's token, deletes nothing, and C is refused.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			ta := l.token()
			setNXPX(a, ta, 10*time.Second)
			l.Wait(10100*time.Millisecond, "A works; its release is held up by a network hiccup")
			setNXPX(b, l.token(), 10*time.Second)
			luaRelease(a, ta)
			setNXPX(c, l.token(), 10*time.Second)
		},
	},
	{
		Name:   "watch-release",
		Title:  "compare and delete with WATCH, GET, MULTI/DEL/EXEC",
		Fixes:  "get-then-del",
		Key:    "lock",
		Expect: Safe,
		Explain: `The same interleaving without Lua: A WATCHes the lock before its GET
			and deletes inside MULTI/EXEC. The lock changed after the WATCH (it expired,
			then B set it), so EXEC answers nil and deletes nothing: optimistic locking,
			from the Redis docs' Transactions page. C is refused while B holds the lock.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			ta := l.token()
			setNXPX(a, ta, 10*time.Second)
			l.Wait(9900*time.Millisecond, "A works on the resource")
			a.Watch("lock", func(w Watched) {
				if w.Do("GET", "lock").Str() != ta {
					return
				}
				l.Wait(200*time.Millisecond, "A's MULTI is held up: a network hiccup")
				setNXPX(b, l.token(), 10*time.Second)
				w.Tx([]any{"DEL", "lock"})
			})
			a.released()
			setNXPX(c, l.token(), 10*time.Second)
		},
	},
	{
		Name:   "timestamp-del",
		Title:  "timestamp lock broken with DEL + SETNX by two clients",
		Key:    "lock.foo",
		Expect: TwoHolders,
		Explain: `The Redis docs' SETNX page describes a lock whose value is its expiry
			as a Unix time, so that others can break a lock left by a crashed holder. If
			two clients see the same expired timestamp and both break it with DEL, then
			SETNX, both succeed: the page shows this very race (C1 and C2 after C3
			crashed), here as B and C after A.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			stampLock(a)
			a.Crash("while holding the lock")
			l.Wait(20*time.Second, "A's timestamp is long past")
			stampLock(b)
			stampLock(c)
			bExpired := stampExpired(b)
			cExpired := stampExpired(c)
			if bExpired {
				b.Do("DEL", "lock.foo")
				stampLock(b)
			}
			if cExpired {
				c.Do("DEL", "lock.foo")
				stampLock(c)
			}
		},
	},
	{
		Name:   "timestamp-getset",
		Title:  "timestamp lock broken with GETSET, as the docs advise",
		Fixes:  "timestamp-del",
		Key:    "lock.foo",
		Expect: Safe,
		Explain: `The docs' fix: break an expired lock with GETSET, which sets the new
			timestamp and returns the old one in one step. Only the client whose GETSET
			returns the expired value has the lock; C's returns B's fresh timestamp, so C
			backs off (having moved B's timestamp a second on, which the docs call
			harmless). It relies on the clients' clocks agreeing: see timestamp-skew.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			stampLock(a)
			a.Crash("while holding the lock")
			l.Wait(20*time.Second, "A's timestamp is long past")
			stampLock(b)
			stampLock(c)
			bExpired := stampExpired(b)
			cExpired := stampExpired(c)
			if bExpired {
				stampGetSet(b)
			}
			l.Wait(time.Second, "C is a moment slower")
			if cExpired {
				stampGetSet(c)
			}
		},
	},
	{
		Name:   "timestamp-skew",
		Title:  "GETSET timestamp lock with a client whose clock runs fast",
		Key:    "lock.foo",
		Expect: TwoHolders,
		Explain: `Every client judges a timestamp lock by its own clock. B's clock runs
			3 s fast, so 9 s into A's 10 s lock B reads A's timestamp as expired, GETSET
			returns it, B judges it expired again, and both hold the lock. With SET NX PX
			the server alone decides when a lock expires, and no client clock matters.`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			b.skew = 3 * time.Second
			b.Note("has a clock that runs 3s fast")
			stampLock(a)
			l.Wait(9*time.Second, "A works on the resource")
			stampLock(b)
			if stampExpired(b) {
				stampGetSet(b)
			}
		},
	},
	{
		Name:   "paused-holder",
		Title:  "a holder paused past its TTL writes to the storage",
		Key:    "lock",
		Expect: StaleWrite,
		Explain: `A holds the lock, then stops for 15 s (a GC pause, a stalled VM) just
			before writing. Its lock expires, B takes it and writes, and A, resuming
			unaware, writes too: the storage accepts a write from a client that no longer
			holds the lock. Kleppmann's critique of Redis locks ("How to do distributed
			locking", 2016; antirez replied in "Is Redlock safe?").`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			setNXPX(a, l.token(), 10*time.Second)
			a.Pause("a stop-the-world GC")
			l.Wait(11*time.Second, "A is paused")
			setNXPX(b, l.token(), 10*time.Second)
			b.Write("B's data", 0)
			l.Wait(4*time.Second, "A is still paused")
			a.Resume()
			a.Write("A's data", 0)
		},
	},
	{
		Name:   "fencing",
		Title:  "fencing tokens from INCR, checked by the storage",
		Fixes:  "paused-holder",
		Key:    "lock",
		Fenced: true,
		Expect: Safe,
		Explain: `Each grant comes with a fencing token: the client INCRs a counter in
			the same MULTI/EXEC as its SET NX PX, so tokens grow with every grant. The
			storage remembers the highest token it has seen and refuses lower ones, so
			A's late write (33) is refused after B's (34). Kleppmann's fix; it needs a
			resource that checks the token.`,
		run: func(l *Lab) {
			l.srv.Set("fence", "32") // the counter has served earlier grants
			a, b := l.client("A"), l.client("B")
			fa := fencedLock(a, l.token(), 10*time.Second)
			a.Pause("a stop-the-world GC")
			l.Wait(11*time.Second, "A is paused")
			fb := fencedLock(b, l.token(), 10*time.Second)
			b.Write("B's data", fb)
			l.Wait(4*time.Second, "A is still paused")
			a.Resume()
			a.Write("A's data", fa)
		},
	},
}

// The recipes: the client side of each lock, deciding from the replies it
// gets whether it holds the lock.

// setnxExpire is the pre-2.6.12 recipe: SETNX, then EXPIRE. crash, when
// set, runs between the two.
func setnxExpire(c *Client, ttl time.Duration, crash func()) {
	if c.Do("SETNX", c.lock(), "1").Int() != 1 {
		return
	}
	c.holds(forever) // until EXPIRE succeeds, the lock has no end
	if crash != nil {
		crash()
		return
	}
	if c.Do("EXPIRE", c.lock(), int64(ttl.Seconds())).Int() == 1 {
		c.holds(ttl)
	}
}

func setNXEX(c *Client, value string, ttl time.Duration) {
	if c.Do("SET", c.lock(), value, "NX", "EX", int64(ttl.Seconds())).OK() {
		c.holds(ttl)
	}
}

func setNXPX(c *Client, token string, ttl time.Duration) {
	if c.Do("SET", c.lock(), token, "NX", "PX", ttl.Milliseconds()).OK() {
		c.holds(ttl)
	}
}

// compareAndDelete is the release script of the Redis docs'
// distributed-locks page.
const compareAndDelete = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`

func luaRelease(c *Client, token string) {
	c.Do("EVAL", compareAndDelete, 1, c.lock(), token)
	c.released()
}

// fencedLock takes the lock and a fencing token in one transaction, so no
// other grant can come between them, and returns the token (0 if refused).
func fencedLock(c *Client, token string, ttl time.Duration) int64 {
	r := c.Tx([]any{"SET", c.lock(), token, "NX", "PX", ttl.Milliseconds()}, []any{"INCR", "fence"})
	if !r[0].OK() {
		return 0
	}
	c.holds(ttl)
	return r[1].Int()
}

// The timestamp lock of the Redis docs' SETNX page ("Design pattern:
// Locking with SETNX"): the value is the Unix time at which the lock
// expires, by the clock of the client that set it.
const stampTimeout = 10 // seconds

// stamp is the value a client writes: its current Unix time + the lock
// timeout + 1.
func stamp(c *Client) int64 { return c.Now().Unix() + stampTimeout + 1 }

// holdsStamp records a belief that lasts until the client's own clock says
// the timestamp has passed.
func holdsStamp(c *Client, ts int64) {
	end := time.Unix(ts+1, 0).Add(-c.skew).Sub(epoch) // when c's clock passes ts
	c.holdsUntil(end, fmt.Sprintf("its timestamp %d has passed", ts))
}

func stampLock(c *Client) {
	ts := stamp(c)
	if c.Do("SETNX", c.lock(), ts).Int() == 1 {
		holdsStamp(c, ts)
	}
}

// stampExpired reads the lock's timestamp and judges it by c's clock.
func stampExpired(c *Client) bool {
	ts, err := strconv.ParseInt(c.Do("GET", c.lock()).Str(), 10, 64)
	return err == nil && c.Now().Unix() > ts
}

// stampGetSet tries to take an expired lock: GETSET writes a new timestamp
// and returns the old one, and only the client that got back an expired
// timestamp holds the lock.
func stampGetSet(c *Client) {
	ts := stamp(c)
	old, err := strconv.ParseInt(c.Do("GETSET", c.lock(), ts).Str(), 10, 64)
	if err == nil && c.Now().Unix() > old {
		holdsStamp(c, ts)
	}
}
