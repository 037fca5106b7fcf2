package edge

// What the tests of package edge_test (guard_redis_test.go, which need a
// whole server and so cannot be in package edge) share with this package's.
var (
	GuardDiffFrames     = guardDiffFrames
	GuardDiffAuthFrames = guardDiffAuthFrames
	ErrTextInvalidMbulk = errTextInvalidMbulk
	ErrTextInvalidBulk  = errTextInvalidBulk
)
