// Package e2e holds minilock's end-to-end suites, one folder each, grouped
// by what they prove. Each starts minilock in-process (server.RunT), and
// those that compare with Redis start a redis-server 7.0 of their own
// (internal/redistest: under CI=true a missing redis-server fails the
// test, elsewhere it skips it).
//
//	go test ./e2e/...                      # all of them
//	go test ./e2e/diff                     # replies byte-identical to redis-server
//	go test ./e2e/locks                    # lock recipes and linearizability
//	go test ./e2e/libraries                # real client libraries against minilock
//	go test ./e2e/reliability              # one client cannot hurt the others
//
// The repository root keeps integration_test.go, minilock through the
// go-redis v9 client: `go test .` runs only that.
package e2e
