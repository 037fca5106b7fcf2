package luaeval

import (
	"math"

	"github.com/minilock/minilock/resp"
)

// The lock release of the seed articles and of bsm/redislock,
//
//	if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end
//
// is the script a lock server runs most. For these exact bodies the engine
// does what the script does without the Lua VM: the same Host.Calls in the
// same order (so MONITOR, read-only and restart-delay refusals and the
// keyspace see exactly what the script makes them see), the same
// comparison, the same reply, and the same error, with the script's SHA1
// and line, when a call fails. A run the native version would have to
// imitate further (no KEYS[1], on which Lua's redis.call fails) runs in
// Lua. The differential suite runs these bodies against redis-server, and
// TestNativeMatchesLua runs them against the Lua path.
var nativeBodies = map[string]nativeScript{
	`if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`:   nativeCompareAndDelete("get", "del"),
	`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`: nativeCompareAndDelete("get", "del"),
	`if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end`:   nativeCompareAndDelete("get", "del"),
	`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`: nativeCompareAndDelete("get", "del"),
	`if redis.call("GET",KEYS[1]) == ARGV[1] then return redis.call("DEL",KEYS[1]) else return 0 end`:   nativeCompareAndDelete("GET", "DEL"),
	`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`: nativeCompareAndDelete("GET", "DEL"),
}

// nativeScript runs a script without Lua, replying into w. handled is false
// when it did nothing, and the script then runs in Lua.
type nativeScript func(e *Engine, s *script, w *resp.Writer, keys, argv [][]byte) (handled bool, err error)

// nativeFor returns the native version of body, or nil.
func nativeFor(body []byte) nativeScript {
	if len(body) > 128 {
		return nil
	}
	return nativeBodies[string(body)]
}

// nativeCompareAndDelete is `if redis.call(get,KEYS[1]) == ARGV[1] then
// return redis.call(del,KEYS[1]) else return 0 end`, with the command names
// as the script spells them.
func nativeCompareAndDelete(get, del string) nativeScript {
	getName, delName := []byte(get), []byte(del)
	return func(e *Engine, s *script, w *resp.Writer, keys, argv [][]byte) (bool, error) {
		if len(keys) == 0 {
			return false, nil
		}
		it, err := e.nativeCall(s, getName, keys[0])
		if err != nil {
			return true, err
		}
		// Lua's ==: only a bulk reply (a Lua string) can equal ARGV[1],
		// and a missing ARGV[1] (nil) equals nothing GET returns.
		if it.Kind != '$' || len(argv) == 0 || string(it.Data) != string(argv[0]) {
			w.Int(0)
			return true, nil
		}
		if it, err = e.nativeCall(s, delName, keys[0]); err != nil {
			return true, err
		}
		if it.Kind == ':' {
			w.Int(it.Int)
		} else {
			// Not what DEL answers; convert it as Lua would.
			v, _ := e.replyToLua(e.sandbox().L, e.callW.B)
			luaToReply(w, v, 2, 2, math.MaxInt) // one reply of the host's
		}
		return true, nil
	}
}

// nativeCall is redis.call(name, key) on line 1 of a native script: its
// reply (in e.callW.B until the next call), or the error the script would
// end with.
func (e *Engine) nativeCall(s *script, name, key []byte) (resp.Item, error) {
	e.argv = append(e.argv[:0], name, key)
	if !e.ctl.enterCall() {
		return resp.Item{}, scriptErrorAt(&s.sha, killMessage(e.ctl.reason.Load()))
	}
	e.callHost()
	it, rest, err := resp.Next(e.callW.B)
	if err != nil || len(rest) != 0 && it.Kind != '*' && it.Kind != '%' && it.Kind != '~' && it.Kind != '>' {
		return resp.Item{}, scriptErrorAt(&s.sha, "ERR Reply from the command could not be parsed")
	}
	if it.Kind == '-' {
		return resp.Item{}, scriptErrorAt(&s.sha, errReplyText("-"+string(it.Data)))
	}
	return it, nil
}

// execNative runs s's native version; handled is false when the script must
// run in Lua instead.
func (e *Engine) execNative(w *resp.Writer, s *script, keys, argv [][]byte, readOnly bool, h Host) (handled bool, err error) {
	e.run = runState{sha: s.sha, host: h, readOnly: readOnly || s.noWrites, resp: 2, active: true}
	e.ctl.begin(false)
	defer func() {
		e.trimCallBuffers()
		e.run = runState{}
		e.ctl.end()
	}()
	return s.native(e, s, w, keys, argv)
}
