// Package libraries runs real client libraries against minilock: go-redis's
// Script (EVALSHA, then EVAL on NOSCRIPT), redsync (one node and Redlock
// over three in-process servers) and bsm/redislock. Each lock is taken,
// contended, left to expire, extended and released.
//
//	go test -v ./e2e/libraries
package libraries
