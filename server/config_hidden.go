package server

// hiddenDefs are the parameters redis-server 7.0.15 marks HIDDEN_CONFIG:
// CONFIG GET answers them when asked by name (and CONFIG SET changes them)
// but no pattern, not even *, lists them, which is why internal/genconfig,
// reading CONFIG GET *, cannot record them. Found by asking redis-server
// for every name its binary holds; the bounds are what its CONFIG SET
// answers. minilock keeps their values: they only slow down or stop Redis's
// own loading, saving and crash handling for Redis's tests. They are not
// in allConfigNames, which is what keeps them out of the patterns.
var hiddenDefs = []configDef{
	{name: "key-load-delay", def: "0", kind: kInt, min: "-2147483648", max: "2147483647"},
	{name: "loading-process-events-interval-bytes", def: "2097152", kind: kInt, min: "1024", max: "2147483647"},
	{name: "lua-enable-deprecated-api", def: "no", kind: kImmutable},
	{name: "rdb-key-save-delay", def: "0", kind: kInt, min: "-2147483648", max: "2147483647"},
	{name: "use-exit-on-panic", def: "no", kind: kBool},
	{name: "watchdog-period", def: "0", kind: kInt, min: "0", max: "2147483647"},
}
