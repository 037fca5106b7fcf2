package reliability_test

import "context"

var ctx = context.Background()
