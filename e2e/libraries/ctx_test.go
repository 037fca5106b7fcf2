package libraries_test

import "context"

var ctx = context.Background()
