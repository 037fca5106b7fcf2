// Package rueidis runs rueidis (github.com/redis/rueidis), the Go client
// from Redis's own organisation, with its defaults against minilock and
// against a redis-server: client-side caching on (RESP3, CLIENT TRACKING
// OPTIN), cached reads with DoCache, and their invalidation when another
// client writes. It is a module of its own so that rueidis and what it
// requires stay out of minilock's go.mod; scripts/test.sh runs it.
//
//	cd e2e/libraries/rueidis && go test -v ./...
package rueidis
