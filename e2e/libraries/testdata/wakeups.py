"""redis-py's pub/sub and blocking calls against 127.0.0.1:$MINILOCK_PORT.

PubSub with subscribe, psubscribe and get_message, publish counts, PUBSUB
introspection, blpop woken by a push from another thread and timing out,
brpoplpush, blmove, bzpopmin, and a signal-list lock whose 5 waiters are
woken one per release, in order. Prints one JSON object; the Go test compares
it between minilock and redis-server and checks what it must contain.
"""
import json
import os
import threading
import time

import redis

port = int(os.environ["MINILOCK_PORT"])


def client():
    return redis.Redis(host="127.0.0.1", port=port, decode_responses=True, socket_timeout=10)


def until(what, cond):
    deadline = time.monotonic() + 5
    while not cond():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(0.001)


def blocked(r):
    return r.info("clients")["blocked_clients"]


out = {}
r = client()

# Pub/sub.
p = r.pubsub()
p.subscribe("lock:released", "other")
pp = r.pubsub()
pp.psubscribe("lock:*")
out["confirmations"] = [p.get_message(timeout=5), p.get_message(timeout=5), pp.get_message(timeout=5)]
out["publish"] = [r.publish("lock:released", "token-1"), r.publish("other", "x"), r.publish("nobody", "y")]
out["messages"] = [p.get_message(timeout=5), p.get_message(timeout=5), pp.get_message(timeout=5)]
out["nothing_more"] = [p.get_message(timeout=0.05), pp.get_message(timeout=0.05)]
out["numsub"] = r.pubsub_numsub("lock:released", "other", "nobody")
out["numpat"] = r.pubsub_numpat()
out["channels"] = sorted(r.pubsub_channels())
p.unsubscribe("other")
out["unsubscribe"] = p.get_message(timeout=5)
out["publish_after_unsubscribe"] = r.publish("other", "x")
p.close()
pp.close()

# Blocking pops, woken from another thread.
def park(fn):
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("v", fn(client())))
    t.start()
    until("a client parks", lambda: blocked(r) == 1)
    return t, result


t, res = park(lambda c: c.blpop(["queue"], timeout=0))
out["lpush"] = r.lpush("queue", "job-1")
t.join(5)
out["blpop"] = res.get("v")
out["blpop_timeout"] = r.blpop(["empty"], timeout=0.05)
out["brpop_timeout"] = r.brpop(["empty"], timeout=0.05)
t, res = park(lambda c: c.brpoplpush("src", "dst", timeout=0))
out["rpush"] = r.rpush("src", "a", "b")
t.join(5)
out["brpoplpush"] = res.get("v")
t, res = park(lambda c: c.blmove("src2", "dst", 0, "LEFT", "LEFT"))
r.rpush("src2", "c")
t.join(5)
out["blmove"] = res.get("v")
out["lists"] = [r.lrange("src", 0, -1), r.lrange("dst", 0, -1)]
t, res = park(lambda c: c.bzpopmin(["zq"], timeout=0))
out["zadd"] = r.zadd("zq", {"a": 1, "b": 2})
t.join(5)
out["bzpopmin"] = res.get("v")

# A signal-list lock: 5 waiters, one woken per release, in order.
order = []
lock = threading.Lock()


def waiter(i):
    client().blpop(["lock-signal:job"], timeout=0)
    with lock:
        order.append(i)


threads = []
for i in range(5):
    th = threading.Thread(target=waiter, args=(i,))
    th.start()
    threads.append(th)
    until("waiter %d parks" % i, lambda: blocked(r) == i + 1)
release = r.register_script("redis.call('del', KEYS[1]) redis.call('lpush', KEYS[1], 1) return 1")
out["wakes"] = []
for i in range(5):
    release(keys=["lock-signal:job"])
    until("release %d wakes one" % i, lambda: len(order) == i + 1)
    out["wakes"].append([len(order), blocked(r)])
for th in threads:
    th.join(5)
out["order"] = order

print(json.dumps(out, sort_keys=True))
