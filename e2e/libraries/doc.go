// Package libraries runs real client libraries, or their protocols, against
// minilock, most of them against a redis-server too with the same results:
//
//   - Go lock libraries through go-redis (locklibs_test.go): go-redis's
//     Script (EVALSHA, then EVAL on NOSCRIPT), redsync (one node, and
//     Redlock over three in-process servers) and bsm/redislock; each lock
//     is taken, contended, left to expire, extended and released.
//
//   - Redisson's and python-redis-lock's protocols, our own implementations
//     of them replayed through go-redis (redisson_test.go,
//     pyredislock_test.go): locks, read-write locks, semaphores, fair locks,
//     and their wait paths woken by the release.
//
//   - npm and Python packages, unmodified (node_test.go, bullmq_test.go,
//     rq_test.go, clients_wakeup_test.go): redis-semaphore and BullMQ
//     (queue, worker, QueueEvents, retries, delayed jobs) through ioredis,
//     RQ's burst workers, scheduler and stream-kept results through
//     redis-py, ioredis's and redis-py's pub/sub and blocking pops.
//     scripts/test.sh installs them; MINILOCK_NODE_MODULES says where the
//     npm packages are.
//
//   - Client-side caching (tracking_test.go, and the module of its own in
//     rueidis/): rueidis with its defaults (RESP3 CLIENT TRACKING, cached
//     reads with DoCache invalidated by another client's writes, BCAST with
//     a prefix), and a RESP2 client through go-redis whose invalidations
//     arrive REDIRECTed to a subscriber of __redis__:invalidate.
//
// To run them:
//
//	go test -v ./e2e/libraries                                  # all of them
//	go test -run 'TestLib' -v ./e2e/libraries                   # the Go libraries
//	go test -run 'TestRedisson|TestPyRedisLock' -v ./e2e/libraries
//	go test -run 'TestRedisSemaphore|TestBullMQ|TestRQ|Wakeups' -v ./e2e/libraries
//	go test -run TestTrackingRESP2Redirect -v ./e2e/libraries
//	cd e2e/libraries/rueidis && go test -v ./...
package libraries
