// Runs redis-semaphore's Mutex, Semaphore and MultiSemaphore with many
// concurrent workers against the server at 127.0.0.1:$MINILOCK_PORT, and
// prints, per kind, how many acquisitions happened and the most permits
// ever held at once (node's event loop makes the counting exact).
const Redis = require('ioredis');
const { Mutex, Semaphore, MultiSemaphore } = require('redis-semaphore');

const port = Number(process.env.MINILOCK_PORT);
const opts = { acquireTimeout: 60000, retryInterval: 3, lockTimeout: 30000 };

async function run(kind, limit, workers, rounds) {
  let held = 0, maxHeld = 0, acquired = 0;
  const clients = [];
  await Promise.all(Array.from({ length: workers }, async (_, w) => {
    const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    clients.push(client);
    for (let r = 0; r < rounds; r++) {
      let lock, permits = 1;
      if (kind === 'mutex') {
        lock = new Mutex(client, 'lib:mutex', opts);
      } else if (kind === 'semaphore') {
        lock = new Semaphore(client, 'lib:semaphore', limit, opts);
      } else {
        permits = 2;
        lock = new MultiSemaphore(client, 'lib:multi', limit, permits, opts);
      }
      await lock.acquire();
      held += permits;
      maxHeld = Math.max(maxHeld, held);
      acquired++;
      await new Promise((res) => setTimeout(res, 1 + (w % 3)));
      held -= permits;
      await lock.release();
    }
  }));
  await Promise.all(clients.map((c) => c.quit()));
  return { kind, limit, workers, rounds, acquired, maxHeld };
}

(async () => {
  const out = [];
  out.push(await run('mutex', 1, 8, 15));
  out.push(await run('semaphore', 3, 10, 15));
  out.push(await run('multi', 5, 10, 10));
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
