// ioredis's pub/sub and blocking commands against the server at
// 127.0.0.1:$MINILOCK_PORT: SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE with their
// message events, PUBLISH and SPUBLISH counts, PUBSUB introspection, BLPOP
// woken by a push and timing out, BLMOVE, BZPOPMIN, CLIENT UNBLOCK, and a
// signal-list lock whose 10 waiters are woken one per release, in order.
// Prints one JSON object; the Go test compares it between minilock and
// redis-server and checks what it must contain.
const Redis = require('ioredis');

const port = Number(process.env.MINILOCK_PORT);
const clients = [];
const mk = () => {
  const c = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  clients.push(c);
  return c;
};

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

async function until(what, cond) {
  for (let i = 0; i < 5000; i++) {
    if (await cond()) return;
    await sleep(1);
  }
  throw new Error('timed out waiting for ' + what);
}

async function blocked(admin) {
  const info = await admin.info('clients');
  return Number(/blocked_clients:(\d+)/.exec(info)[1]);
}

(async () => {
  const out = {};
  const admin = mk();

  // Pub/sub.
  const sub = mk(), psub = mk(), ssub = mk();
  const got = [];
  sub.on('message', (ch, msg) => got.push(['message', ch, msg]));
  psub.on('pmessage', (pat, ch, msg) => got.push(['pmessage', pat, ch, msg]));
  ssub.on('smessage', (ch, msg) => got.push(['smessage', ch, msg]));
  out.subscribe = await sub.subscribe('lock:released', 'other');
  out.psubscribe = await psub.psubscribe('lock:*');
  out.ssubscribe = await ssub.ssubscribe('{lock}:s');
  out.publish = [
    await admin.publish('lock:released', 'token-1'),
    await admin.publish('other', 'x'),
    await admin.publish('nobody', 'y'),
    await admin.spublish('{lock}:s', 'sharded'),
  ];
  await until('4 messages', () => got.length >= 4);
  out.messages = got.map((m) => m.join(' ')).sort();
  out.numsub = await admin.pubsub('NUMSUB', 'lock:released', 'other', 'nobody');
  out.numpat = await admin.pubsub('NUMPAT');
  out.channels = (await admin.pubsub('CHANNELS', '*')).sort();
  out.shardchannels = await admin.pubsub('SHARDCHANNELS');
  out.unsubscribe = await sub.unsubscribe('other');
  out.publishAfterUnsubscribe = await admin.publish('other', 'x');
  await Promise.all([sub.quit(), psub.quit(), ssub.quit()]);

  // Blocking pops.
  const waiter = mk();
  let p = waiter.blpop('queue', 0);
  await until('BLPOP parks', async () => (await blocked(admin)) === 1);
  out.lpush = await admin.lpush('queue', 'job-1');
  out.blpop = await p;
  out.blpopTimeout = await waiter.blpop('empty', 0.05);
  p = waiter.blmove('src', 'dst', 'LEFT', 'RIGHT', 0);
  await until('BLMOVE parks', async () => (await blocked(admin)) === 1);
  out.rpush = await admin.rpush('src', 'a', 'b');
  out.blmove = await p;
  out.lists = [await admin.lrange('src', 0, -1), await admin.lrange('dst', 0, -1)];
  p = waiter.bzpopmin('zq', 0);
  await until('BZPOPMIN parks', async () => (await blocked(admin)) === 1);
  out.zadd = await admin.zadd('zq', 2, 'b', 1, 'a');
  out.bzpopmin = await p;
  const id = await waiter.client('ID');
  p = waiter.blpop('never', 0).catch((e) => 'error: ' + e.message);
  await until('BLPOP parks', async () => (await blocked(admin)) === 1);
  out.unblock = await admin.client('UNBLOCK', id, 'ERROR');
  out.unblocked = await p;

  // A signal-list lock: 10 waiters park in BLPOP, one after another; each
  // release pushes one signal, which wakes exactly the longest waiting.
  const order = [];
  const waits = [];
  for (let i = 0; i < 10; i++) {
    const c = mk();
    waits.push(c.blpop('lock-signal:job', 0).then(() => order.push(i)));
    await until('waiter ' + i + ' parks', async () => (await blocked(admin)) === i + 1);
  }
  out.wakes = [];
  for (let i = 0; i < 10; i++) {
    await admin.eval("redis.call('del', KEYS[1]) redis.call('lpush', KEYS[1], 1) return 1", 1, 'lock-signal:job');
    await until('release ' + i + ' wakes one', () => order.length === i + 1);
    out.wakes.push([order.length, await blocked(admin)]);
  }
  await Promise.all(waits);
  out.order = order;

  await Promise.all(clients.map((c) => c.quit().catch(() => {})));
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
