// BullMQ (npm), unmodified, against the server on $MINILOCK_PORT: its
// Queue.add, its addStandardJob and extendLocks scripts run as BullMQ runs
// them (arguments packed with msgpackr as its RedisQueueBackend packs
// them), and values packed by msgpackr unpacked and packed again by the
// server's cmsgpack. Prints one JSON object with what each step answered.
const { Queue } = require('bullmq');
const scripts = require('bullmq/dist/cjs/scripts');
const { Packr } = require('msgpackr');
const IORedis = require('ioredis');

const port = Number(process.env.MINILOCK_PORT);
const packer = new Packr({ useRecords: false, encodeUndefinedAsNil: true });
const pack = (v) => packer.pack(v);

async function settle(p) {
  try {
    return { ok: await p };
  } catch (e) {
    return { err: String(e.message) };
  }
}

async function main() {
  const out = {};
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  const queue = new Queue('paint', { connection });
  out.queueAdd = await settle(queue.add('wall', { color: 'red' }).then((job) => job.id));
  await queue.close();

  const r = new IORedis({ host: '127.0.0.1', port });
  await r.flushall();
  const prefix = 'bull:paint:';
  const keys = ['wait', 'paused', 'meta', 'id', 'completed', 'delayed', 'active', 'events', 'marker'].map((k) => prefix + k);
  const args = [prefix, '', 'wall', 1700000000000, undefined, undefined, undefined, undefined, undefined, undefined];
  const opts = { attempts: 3, delay: 0, removeOnComplete: true, priority: 0, lifo: false, backoff: { type: 'fixed', delay: 1.5 } };
  out.addStandardJob = await settle(r.eval(scripts.addStandardJob.content, 9, ...keys, pack(args), JSON.stringify({ color: 'red' }), pack(opts)));
  // What addStandardJob did before its first XADD.
  out.afterAdd = { id: await r.get(prefix + 'id'), job: await r.hgetall(prefix + '1') };

  // extendLocks: two locks held with the given tokens, one lost.
  await r.flushall();
  await r.set(prefix + 'j1:lock', 'tok1', 'PX', 1000);
  await r.set(prefix + 'j2:lock', 'other', 'PX', 1000);
  await r.sadd(prefix + 'stalled', 'j1', 'j2', 'j3');
  out.extendLocks = await settle(r.eval(scripts.extendLocks.content, 1, prefix + 'stalled', prefix,
    pack(['tok1', 'tok2', 'tok3']), pack(['j1', 'j2', 'j3']), 60000));
  out.afterExtend = { stalled: (await r.smembers(prefix + 'stalled')).sort(), pttl1: (await r.pttl(prefix + 'j1:lock')) > 1000 };

  // msgpackr's encodings through cmsgpack and back.
  const values = [opts, args, [1, -1, 127, 128, -33, 65536, 2 ** 32, -(2 ** 31) - 1, 2 ** 53, 0.5, 1.1, -0.25],
    'x'.repeat(40), 'y'.repeat(300), 'z'.repeat(70000), { nested: { a: [1, { b: [true, false, null] }] } }, [], {}];
  out.roundTrip = [];
  for (const v of values) {
    const packed = pack(v);
    const rt = await settle(r.evalBuffer('return cmsgpack.pack(cmsgpack.unpack(ARGV[1]))', 0, packed));
    const json = await settle(r.eval('return cjson.encode(cmsgpack.unpack(ARGV[1]))', 0, packed));
    out.roundTrip.push({ in: packed.toString('hex').slice(0, 200), out: rt.ok ? rt.ok.toString('hex').slice(0, 200) : rt.err, json: json.ok || json.err });
  }
  r.disconnect();
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
