// Package locks proves that the lock recipes behave as their authors
// promise on minilock: the seed articles' recipes driven through go-redis
// with contending clients (recipes_test.go), and a linearizability check
// (porcupine) of acquire, release, extend, read and fence histories with
// clients dropping mid-operation (linearizability_test.go), also for a lock
// whose waiters park in BLPOP on a signal list (blpop_linearizability_test.go).
//
//	go test -run TestRecipe -v ./e2e/locks
//	go test -run TestLockLinearizable -v ./e2e/locks
//	go test -run TestBLPOPLock -v ./e2e/locks
package locks
