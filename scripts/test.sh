#!/usr/bin/env bash
# Runs every check minilock has: formatting, vet, the whole test suite with
# the race detector (differential tests against a real redis-server
# included), and a short smoke run of every fuzzer.
#
#   scripts/test.sh                       # FUZZTIME=20000x: 20,000 inputs per fuzzer
#   FUZZTIME=1000000x scripts/test.sh     # longer fuzzing
#
# The budget is a count, not a duration: with a duration, Go 1.26's fuzz
# coordinator can fail a target with "context deadline exceeded" at the
# deadline although no input failed (golang/go#75804, fixed in Go 1.27).
set -euo pipefail
cd "$(dirname "$0")/.."

# The differential tests need the real thing.
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-benchmark >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	echo "installing redis-server and redis-tools (Debian packages)"
	$sudo apt-get install -y redis-server redis-tools >/dev/null ||
		{ $sudo apt-get update >/dev/null && $sudo apt-get install -y redis-server redis-tools >/dev/null; }
fi
redis-server --version

# The lock-library tests run real npm packages, unmodified, against minilock.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	echo "installing nodejs and npm (Debian packages)"
	$sudo apt-get install -y nodejs npm >/dev/null ||
		{ $sudo apt-get update >/dev/null && $sudo apt-get install -y nodejs npm >/dev/null; }
fi
export MINILOCK_NODE_MODULES="${MINILOCK_NODE_MODULES:-$HOME/.cache/minilock-npm/node_modules}"
npm_prefix=$(dirname "$MINILOCK_NODE_MODULES")
if [ ! -d "$MINILOCK_NODE_MODULES/redis-semaphore" ] || [ ! -d "$MINILOCK_NODE_MODULES/bullmq" ]; then
	echo "installing npm packages into $npm_prefix"
	mkdir -p "$npm_prefix"
	npm install --silent --no-audit --no-fund --prefix "$npm_prefix" redis-semaphore@5.8.0 ioredis@5.9.3 bullmq@6.7.0 >/dev/null
fi

# redis-py's pub/sub and blocking calls run against minilock too: Debian's
# python3-redis, for the system's /usr/bin/python3.
if ! /usr/bin/python3 -c 'import redis' >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	echo "installing python3-redis (Debian package)"
	$sudo apt-get install -y python3-redis >/dev/null ||
		{ $sudo apt-get update >/dev/null && $sudo apt-get install -y python3-redis >/dev/null; }
fi

# RQ, a job queue whose results are streams (e2e/libraries/rq_test.go):
# Debian's python3-rq.
if ! /usr/bin/python3 -c 'import rq' >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	echo "installing python3-rq (Debian package)"
	$sudo apt-get install -y python3-rq >/dev/null ||
		{ $sudo apt-get update >/dev/null && $sudo apt-get install -y python3-rq >/dev/null; }
fi

# redis_exporter, for the metric names it exports from minilock and from
# redis-server (e2e/diff). Built from its Go module: the proxy serves
# v1.74.0 but the checksum database does not answer for this module here,
# so its zip is checked only against the go.sum of the build it is part of.
export MINILOCK_REDIS_EXPORTER="${MINILOCK_REDIS_EXPORTER:-$HOME/.cache/minilock-tools/redis_exporter}"
if [ ! -x "$MINILOCK_REDIS_EXPORTER" ]; then
	echo "building redis_exporter v1.74.0 into $MINILOCK_REDIS_EXPORTER"
	mkdir -p "$(dirname "$MINILOCK_REDIS_EXPORTER")"
	exporter_build=$(mktemp -d)
	(
		cd "$exporter_build"
		export GONOSUMDB=github.com/oliver006 GOFLAGS=-mod=mod
		go mod init exporterbuild >/dev/null 2>&1
		go get github.com/oliver006/redis_exporter@v1.74.0 >/dev/null 2>&1
		go build -o "$MINILOCK_REDIS_EXPORTER" github.com/oliver006/redis_exporter
	)
	rm -rf "$exporter_build"
fi

echo "== gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"
	echo "$unformatted"
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== go mod tidy"
if ! go mod tidy -diff; then
	echo "go.mod or go.sum is not tidy: run go mod tidy"
	exit 1
fi

echo "== go test -race"
go test -race -count=1 ./...

# rueidis is a module of its own, so that its requirements stay out of
# minilock's go.mod; on both edges.
echo "== rueidis (e2e/libraries/rueidis)"
(cd e2e/libraries/rueidis && go vet ./... && go mod tidy -diff &&
	go test -race -count=1 ./... && MINILOCK_EDGE=epoll go test -race -count=1 ./...)

# The same end-to-end suites on the other edge. An embedded server
# (server.Config) defaults to a goroutine per connection and the binary,
# on Linux, to the epoll edge; MINILOCK_EDGE=epoll|goroutine overrides both
# for every server a test starts.
if [ "$(uname -s)" = Linux ]; then
	echo "== go test -race, epoll edge (MINILOCK_EDGE=epoll)"
	MINILOCK_EDGE=epoll go test -race -count=1 . ./server/ ./e2e/...
	echo "== go test -race, the binary on the goroutine edge (MINILOCK_EDGE=goroutine)"
	MINILOCK_EDGE=goroutine go test -race -count=1 ./cmd/minilock/
fi

echo "== fuzz smoke (${FUZZTIME:=20000x} each)"
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r file; do
	pkg=$(dirname "$file")
	for fuzz in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | cut -d' ' -f2); do
		echo "-- $fuzz ($pkg)"
		go test -run '^$' -fuzz "^${fuzz}\$" -fuzztime "$FUZZTIME" "$pkg"
	done
done
# The fuzzers that talk to a server over a socket, again on the epoll edge
# (they start their servers with server.EdgeFromEnv, which reads MINILOCK_EDGE).
for fuzz in FuzzServerFrames FuzzCommandArgs FuzzEval; do
	echo "-- $fuzz (./server), epoll edge"
	MINILOCK_EDGE=epoll go test -run '^$' -fuzz "^${fuzz}\$" -fuzztime "$FUZZTIME" ./server
done
echo "all checks passed"
