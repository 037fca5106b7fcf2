module github.com/minilock/minilock/e2e/libraries/rueidis

go 1.26.8

require (
	github.com/minilock/minilock v0.0.0
	github.com/redis/rueidis v1.0.79
)

require (
	github.com/tidwall/btree v1.8.1 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/redcon v1.6.2 // indirect
	github.com/yuin/gopher-lua v1.1.2 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/minilock/minilock => ../../..
