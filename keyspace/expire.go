package keyspace

import (
	"math"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// The expiry commands (expire.c).

// expireFlags are EXPIRE's NX|XX|GT|LT.
type expireFlags struct{ nx, xx, gt, lt bool }

var (
	errExpireNX   = resp.NewError("NX and XX, GT or LT options at the same time are not compatible")
	errExpireGTLT = resp.NewError("GT and LT options at the same time are not compatible")
)

// parseExpireFlags reads the options after EXPIRE's time
// (expire.c:parseExtendedExpireArgumentsOrReply).
func parseExpireFlags(args [][]byte) (expireFlags, error) {
	var f expireFlags
	for _, a := range args {
		switch {
		case redisstr.Option(a, "nx"):
			f.nx = true
		case redisstr.Option(a, "xx"):
			f.xx = true
		case redisstr.Option(a, "gt"):
			f.gt = true
		case redisstr.Option(a, "lt"):
			f.lt = true
		default:
			return f, resp.NewError("Unsupported option " + redisstr.CString(a))
		}
	}
	if f.nx && (f.xx || f.gt || f.lt) {
		return f, errExpireNX
	}
	if f.gt && f.lt {
		return f, errExpireGTLT
	}
	return f, nil
}

// expire implements EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT
// (expireGenericCommand): seconds selects the unit, relative adds the
// current time. A deadline that has already passed deletes the key.
func (k *Keyspace) expire(c *Ctx, name string, args [][]byte, seconds, relative bool) error {
	f, err := parseExpireFlags(args[3:])
	if err != nil {
		return err
	}
	when, err := intArg(args[2])
	if err != nil {
		return err
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			return resp.ErrInvalidExpire(name)
		}
		when *= 1000
	}
	if relative {
		if when > math.MaxInt64-c.Now {
			return resp.ErrInvalidExpire(name)
		}
		when += c.Now
	}
	e, i, ok := k.find(c, args[1])
	if !ok {
		c.W.Int(0)
		return nil
	}
	cur, has := e.expireAt, e.expireAt != 0
	refuse := (f.nx && has) ||
		(f.xx && !has) ||
		(f.gt && (!has || when <= cur)) ||
		(f.lt && has && when >= cur)
	if refuse {
		c.W.Int(0)
		return nil
	}
	if when <= c.Now {
		k.remove(c.DB, i)
		k.notify(NotifyGeneric, "del", args[1], c.DB)
	} else {
		k.setExpire(c.DB, i, when)
		k.notify(NotifyGeneric, "expire", args[1], c.DB)
	}
	c.W.Int(1)
	return nil
}

// EXPIRE key seconds [NX|XX|GT|LT]
func CmdExpire(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.expire(c, "expire", args, true, true)
}

// PEXPIRE key milliseconds [NX|XX|GT|LT]
func CmdPExpire(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.expire(c, "pexpire", args, false, true)
}

// EXPIREAT key unix-seconds [NX|XX|GT|LT]
func CmdExpireAt(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.expire(c, "expireat", args, true, false)
}

// PEXPIREAT key unix-ms [NX|XX|GT|LT]
func CmdPExpireAt(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.expire(c, "pexpireat", args, false, false)
}

// ttl implements TTL, PTTL, EXPIRETIME and PEXPIRETIME
// (ttlGenericCommand): -2 for a missing key, -1 for no deadline, else the
// remaining (or, absolute, the deadline) time, never negative. Seconds are
// rounded to the nearest, (ms+500)/1000.
func (k *Keyspace) ttl(c *Ctx, key []byte, ms, absolute bool) {
	e, _, ok := k.readNoTouch(c, key) // LOOKUP_NOTOUCH
	switch {
	case !ok:
		c.W.Int(-2)
	case e.expireAt == 0:
		c.W.Int(-1)
	default:
		t := e.expireAt
		if !absolute {
			t -= c.Now
		}
		t = max(t, 0)
		if !ms {
			// (t+500)/1000 without overflowing near LLONG_MAX, where Redis
			// (compiled C) still answers the rounded value.
			t = t/1000 + (t%1000+500)/1000
		}
		c.W.Int(t)
	}
}

// TTL key
func CmdTTL(k *Keyspace, c *Ctx, args [][]byte) error {
	k.ttl(c, args[1], false, false)
	return nil
}

// PTTL key
func CmdPTTL(k *Keyspace, c *Ctx, args [][]byte) error {
	k.ttl(c, args[1], true, false)
	return nil
}

// EXPIRETIME key
func CmdExpireTime(k *Keyspace, c *Ctx, args [][]byte) error {
	k.ttl(c, args[1], false, true)
	return nil
}

// PEXPIRETIME key
func CmdPExpireTime(k *Keyspace, c *Ctx, args [][]byte) error {
	k.ttl(c, args[1], true, true)
	return nil
}

// PERSIST key: 1 if a deadline was removed.
func CmdPersist(k *Keyspace, c *Ctx, args [][]byte) error {
	e, _, ok := k.find(c, args[1])
	if ok && k.clearExpire(c.DB, e) {
		k.touch(c.DB, args[1])
		k.notify(NotifyGeneric, "persist", args[1], c.DB)
		c.W.Int(1)
		return nil
	}
	c.W.Int(0)
	return nil
}
