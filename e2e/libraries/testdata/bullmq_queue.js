// BullMQ (npm), unmodified, as an application uses it, against the server
// on $MINILOCK_PORT: a Queue, a Worker with concurrency 3, QueueEvents
// (which reads the queue's event stream with XREAD BLOCK), a job that
// fails once and succeeds on its retry, one that fails for good, a
// delayed job, and a burst of jobs. Prints one JSON object of what
// happened, in an order that does not depend on timing.
const { Queue, Worker, QueueEvents } = require('bullmq');
const IORedis = require('ioredis');

const port = Number(process.env.MINILOCK_PORT);
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };

async function main() {
  const name = 'paint';
  const events = new QueueEvents(name, { connection });
  await events.waitUntilReady();
  const queue = new Queue(name, { connection });
  await queue.obliterate({ force: true }).catch(() => {});

  const seen = { completed: [], failed: [], delayedFired: false };
  events.on('completed', ({ jobId, returnvalue }) => seen.completed.push(`${jobId}:${returnvalue}`));
  events.on('failed', ({ jobId, failedReason }) => seen.failed.push(`${jobId}:${failedReason}`));

  const attempts = {};
  let running = 0;
  let maxRunning = 0;
  const worker = new Worker(name, async (job) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    try {
      attempts[job.name] = (attempts[job.name] || 0) + 1;
      await new Promise((r) => setTimeout(r, 20));
      if (job.name === 'flaky' && attempts[job.name] === 1) throw new Error('first try fails');
      if (job.name === 'broken') throw new Error('always fails');
      return `${job.name}-${job.data.n * 2}`;
    } finally {
      running--;
    }
  }, { connection, concurrency: 3 });

  const jobs = [];
  for (let n = 0; n < 10; n++) jobs.push(await queue.add('burst', { n }));
  const flaky = await queue.add('flaky', { n: 100 }, { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
  const broken = await queue.add('broken', { n: 200 }, { attempts: 2, backoff: { type: 'fixed', delay: 10 } });
  const delayed = await queue.add('later', { n: 300 }, { delay: 300 });

  const all = [...jobs, flaky, broken, delayed];
  const deadline = Date.now() + 60000;
  for (;;) {
    const states = await Promise.all(all.map((j) => queue.getJobState(j.id)));
    if (states.every((s) => s === 'completed' || s === 'failed')) break;
    if (Date.now() > deadline) throw new Error('jobs not done: ' + JSON.stringify(states));
    await new Promise((r) => setTimeout(r, 50));
  }
  // QueueEvents sees the last events shortly after the jobs settle.
  const waitEvents = Date.now() + 10000;
  while (seen.completed.length + seen.failed.length < all.length && Date.now() < waitEvents) {
    await new Promise((r) => setTimeout(r, 50));
  }

  const results = {};
  for (const j of all) {
    const job = await queue.getJob(j.id);
    results[j.id] = { name: job.name, state: await job.getState(), returnvalue: job.returnvalue, attemptsMade: job.attemptsMade, failedReason: job.failedReason || '' };
  }
  const out = {
    results,
    counts: await queue.getJobCounts('completed', 'failed', 'wait', 'active', 'delayed'),
    completedEvents: seen.completed.sort(),
    failedEvents: seen.failed.sort(),
    attempts,
    concurrencyUsed: maxRunning > 1 && maxRunning <= 3,
  };
  const r = new IORedis({ host: '127.0.0.1', port });
  out.eventsInStream = (await r.xlen(`bull:${name}:events`)) > 0;
  r.disconnect();
  await worker.close();
  await events.close();
  await queue.close();
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
