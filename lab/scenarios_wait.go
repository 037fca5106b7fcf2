package lab

import (
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// waitScenarios are the races of waiting for a lock: a waiter that is
// woken by a message or a pushed signal instead of polling, and the ways
// that wake-up goes missing.
var waitScenarios = []*Scenario{
	{
		Name:   "subscribe-late",
		Title:  "try, then subscribe: the release message is lost",
		Key:    "lock",
		Expect: IdleWait,
		Explain: `A waiter that finds the lock taken subscribes to the lock's release
			channel and waits for the holder's unlock script to PUBLISH there, as
			Redisson's RLock does, for at most the lock's remaining TTL. Here B tries,
			fails, and only then subscribes. A releases in between: its PUBLISH reaches
			nobody (pub/sub keeps no messages), so B waits out the whole 25 s while the
			lock is free. The lost wake-up of condition variables, over Redis.`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			ta, tb := l.token(), l.token()
			tryLock(a, ta, 30*time.Second)
			l.Wait(5*time.Second, "A works on the resource")
			if tryLock(b, tb, 30*time.Second) {
				return
			}
			l.Wait(time.Millisecond, "B's SUBSCRIBE is on its way")
			releaseAndPublish(a, ta)
			l.Wait(time.Millisecond, "B's SUBSCRIBE arrives")
			b.Subscribe(releaseChannel)
			if !b.AwaitMessage() {
				b.Note("no message came: tries again")
			}
			tryLock(b, tb, 30*time.Second)
		},
	},
	{
		Name:   "subscribe-first",
		Title:  "subscribe, then try: the release always wakes the waiter",
		Fixes:  "subscribe-late",
		Key:    "lock",
		Expect: Safe,
		Explain: `B subscribes to the release channel before it tries the lock, so a
			release after its failed try is published to a channel it already listens
			on: the message wakes B the instant A releases, and B takes the lock at once.
			Redisson's lock() does the same: it tries once, subscribes, and tries again
			before each wait, so a release in the gap is seen by the second try.`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			ta, tb := l.token(), l.token()
			tryLock(a, ta, 30*time.Second)
			l.Wait(5*time.Second, "A works on the resource")
			b.Subscribe(releaseChannel)
			if tryLock(b, tb, 30*time.Second) {
				return
			}
			l.Wait(time.Millisecond, "A finishes its work")
			releaseAndPublish(a, ta)
			if !b.AwaitMessage() {
				b.Note("no message came: tries again")
			}
			tryLock(b, tb, 30*time.Second)
		},
	},
	{
		Name:   "signal-crash",
		Title:  "signal-list lock, holder crashes: a BLPOP longer than the TTL",
		Key:    "lock:res",
		Expect: IdleWait,
		Explain: `The signal-list lock of python-redis-lock: the lock is SET NX EX, a
			waiter BLPOPs lock-signal:<name>, and the release pushes one element there. A
			crashes, so no signal comes, and the lock frees itself only when its 10 s TTL
			runs out. B waits with a BLPOP timeout of 60 s, longer than the TTL, so it
			sleeps until 62 s while the lock stands free from 10 s. python-redis-lock
			refuses such a timeout (TimeoutTooLarge) for this reason.`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			signalLock(a, l.token())
			l.Wait(2*time.Second, "A works on the resource")
			tb := l.token()
			if signalLock(b, tb) {
				return
			}
			wait := b.BLPop(signalList, 60*time.Second)
			l.Wait(time.Second, "A works on")
			a.Crash("while holding the lock: no signal will come")
			wait.Await()
			signalLock(b, tb)
		},
	},
	{
		Name:   "signal-ttl",
		Title:  "signal-list lock, holder crashes: a BLPOP as long as the TTL",
		Key:    "lock:res",
		Expect: IdleWait,
		Explain: `The same crash with python-redis-lock's own choice: acquire() without a
			timeout BLPOPs for the lock's whole expire, 10 s. That bounds the wait by the
			TTL, but not by what is left of it: B came 2 s after A took the lock, so it
			wakes at 12 s, 2 s after the lock freed. The later a waiter comes, the longer
			it oversleeps, up to a whole TTL.`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			signalLock(a, l.token())
			l.Wait(2*time.Second, "A works on the resource")
			tb := l.token()
			if signalLock(b, tb) {
				return
			}
			wait := b.BLPop(signalList, signalExpire)
			l.Wait(time.Second, "A works on")
			a.Crash("while holding the lock: no signal will come")
			wait.Await()
			signalLock(b, tb)
		},
	},
	{
		Name:   "signal-pttl",
		Title:  "signal-list lock whose waiters BLPOP for the lock's remaining TTL",
		Fixes:  "signal-crash, signal-ttl",
		Key:    "lock:res",
		Expect: Safe,
		Explain: `The same crash, but a failed try answers the lock's remaining TTL (one
			script: SET NX, else PTTL) and the waiter passes exactly that to BLPOP. The
			server keeps both deadlines on one clock, so B and C time out the instant the
			lock expires; B takes it, C waits again, and B's release (DEL, then LPUSH to
			the signal list) wakes C at once. A waiter never sleeps past the lock.`,
		run: func(l *Lab) {
			a, b, c := l.client("A"), l.client("B"), l.client("C")
			tryLock(a, l.token(), 10*time.Second)
			l.Wait(2*time.Second, "A works on the resource")
			tb, tc := l.token(), l.token()
			waitB := signalWait(b, tb)
			l.Wait(2*time.Second, "C comes along")
			waitC := signalWait(c, tc)
			l.Wait(time.Second, "A works on")
			a.Crash("while holding the lock: no signal will come")
			waitB.Await()
			waitB = signalWait(b, tb)
			waitC.Await()
			waitC = signalWait(c, tc)
			l.Wait(3*time.Second, "B works on the resource")
			signalRelease(b, tb)
			waitC.Await()
			signalWait(c, tc)
		},
	},
}

// The waiting recipes. A waiter that finds the lock taken starts waiting
// at once (waitUpTo, BLPop); what ends its wait is what the server sends.

// releaseChannel is where a release is announced, as Redisson names its
// channel for a lock called "lock".
const releaseChannel = "redisson_lock__channel:{lock}"

// tryScript takes the lock, or answers how long it is still held, as
// Redisson's tryLockInnerAsync does (nil, or the lock's PTTL). Redisson's
// lock is a hash counting reentries; a string token is enough here.
const tryScript = `if redis.call('set',KEYS[1],ARGV[1],'NX','PX',ARGV[2]) then return nil end return redis.call('pttl',KEYS[1])`

// releasePublishScript is compare-and-delete that also announces the
// release, as Redisson's unlock script PUBLISHes its unlock message (0).
const releasePublishScript = `if redis.call('get',KEYS[1])==ARGV[1] then redis.call('del',KEYS[1]) redis.call('publish',KEYS[2],'0') return 1 end return 0`

// tryLock tries the lock once. If it is taken, c waits for it, for the
// lock's remaining TTL at most, as Redisson waits; tryLock reports whether
// c got the lock.
func tryLock(c *Client, token string, ttl time.Duration) bool {
	r := c.Do("EVAL", tryScript, 1, c.lock(), token, ttl.Milliseconds())
	if errors.Is(r.err, redis.Nil) {
		c.holds(ttl)
		return true
	}
	if pttl := r.Int(); pttl > 0 {
		c.waitUpTo(time.Duration(pttl) * time.Millisecond)
	}
	return false
}

func releaseAndPublish(c *Client, token string) {
	c.Do("EVAL", releasePublishScript, 2, c.lock(), releaseChannel, token)
	c.released()
}

// The signal-list lock of python-redis-lock: the lock is SET NX EX, waiters
// BLPOP lock-signal:<name>, and the release script deletes the lock and
// pushes one element onto the signal list.
const (
	signalList   = "lock-signal:res"
	signalExpire = 10 * time.Second
)

// signalReleaseScript releases a signal-list lock the way python-redis-lock's
// protocol does (our own script): if the token matches, delete the lock and
// leave exactly one signal in the list, with a TTL so an unclaimed signal
// does not linger. KEYS are the lock and its signal list, ARGV the token and
// the signal's TTL in ms; 0 means released, 1 not the holder.
const signalReleaseScript = `local holder = redis.call('get', KEYS[1])
if holder ~= ARGV[1] then return 1 end
redis.call('del', KEYS[1], KEYS[2])
redis.call('rpush', KEYS[2], 1)
redis.call('pexpire', KEYS[2], ARGV[2])
return 0`

// signalLock is python-redis-lock's try: SET NX EX.
func signalLock(c *Client, token string) bool {
	if c.Do("SET", c.lock(), token, "NX", "EX", int64(signalExpire.Seconds())).OK() {
		c.holds(signalExpire)
		return true
	}
	return false
}

// signalWait tries the lock and, if it is taken, parks c on the signal list
// for the lock's remaining TTL; it returns the parked BLPOP, or nil once c
// holds the lock.
func signalWait(c *Client, token string) *Blocked {
	r := c.Do("EVAL", tryScript, 1, c.lock(), token, signalExpire.Milliseconds())
	if errors.Is(r.err, redis.Nil) {
		c.holds(signalExpire)
		return nil
	}
	return c.BLPop(signalList, time.Duration(max(r.Int(), 1))*time.Millisecond)
}

func signalRelease(c *Client, token string) {
	c.Do("EVAL", signalReleaseScript, 2, c.lock(), signalList, token, 1000)
	c.released()
}
