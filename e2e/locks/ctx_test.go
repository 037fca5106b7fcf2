package locks_test

import "context"

var ctx = context.Background()
