"""RQ (Debian's python3-rq 1.13), unmodified, against the server on
$MINILOCK_PORT: a burst worker runs jobs that succeed, fail, fail once and
are retried, depend on others, and one scheduled in the future that the
worker's scheduler enqueues. Results are kept in streams (XADD
rq:results:<id> MAXLEN ~ 10 inside a MULTI). Prints one JSON object of
what happened, without ids or times."""
import json
import os
import sys
import time
from datetime import timedelta

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from redis import Redis  # noqa: E402
from rq import Queue, Retry, Worker  # noqa: E402
from rq.job import Job  # noqa: E402

import rqjobs  # noqa: E402

conn = Redis(host="127.0.0.1", port=int(os.environ["MINILOCK_PORT"]))
conn.flushall()
q = Queue("default", connection=conn)

ok = q.enqueue(rqjobs.double, 21)
bad = q.enqueue(rqjobs.boom, "no luck")
flaky = q.enqueue(rqjobs.flaky, retry=Retry(max=2))
first = q.enqueue(rqjobs.concat, "a", "b")
second = q.enqueue(rqjobs.concat, "c", "d", depends_on=first)
later = q.enqueue_in(timedelta(seconds=1), rqjobs.double, 50)
many = [q.enqueue(rqjobs.double, n) for n in range(12)]

Worker([q], connection=conn).work(burst=True)
time.sleep(1.3)
# The retry and the scheduled job wait in the scheduled registry; a burst
# worker with its scheduler moves them to the queue and runs them.
Worker([q], connection=conn).work(burst=True, with_scheduler=True)
time.sleep(1.3)
Worker([q], connection=conn).work(burst=True, with_scheduler=True)


def summary(job):
    job = Job.fetch(job.id, connection=conn)
    latest = job.latest_result()
    out = {
        "status": job.get_status(),
        "return": job.return_value(),
        "results": len(job.results()),
        "latest": latest.type.name if latest else None,
    }
    if latest is not None and latest.exc_string:
        out["exc"] = latest.exc_string.strip().splitlines()[-1]
    return out


print(json.dumps({
    "ok": summary(ok),
    "bad": summary(bad),
    "flaky": summary(flaky),
    "first": summary(first),
    "second": summary(second),
    "later": summary(later),
    "many": [summary(j)["return"] for j in many],
    "finished": len(q.finished_job_registry),
    "failed": len(q.failed_job_registry),
    "queued": len(q),
    "result_streams": sorted(conn.xlen(k) for k in conn.keys("rq:results:*")),
}, sort_keys=True))
