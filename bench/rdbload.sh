#!/bin/bash
# Start-up with a 1,000,000-key dump.rdb, minilock beside redis-server:
#   bench/rdbload.sh [keys] [runs]
# Builds minilock, fills it with lock keys (SET lock:<i> owner-<i> PX 3600000),
# SAVEs the file, checks it with redis-check-rdb, then starts each server on a
# copy of it, one after the other, runs times, and prints per run the load time
# the server logs, the time from exec to the first PONG, the CPU seconds the
# process used to get there and its RSS. Needs redis-server, redis-cli,
# redis-check-rdb and bc.
set -euo pipefail
keys=${1:-1000000}
runs=${2:-5}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/minilock" ./cmd/minilock
port=$((20000 + RANDOM % 20000))

"$work/minilock" --port $port --dir "$work" >"$work/fill.log" 2>&1 &
fill=$!
until [ "$(redis-cli -p $port ping 2>/dev/null)" == "PONG" ]; do sleep 0.05; done
awk -v n="$keys" 'BEGIN {
	for (i = 0; i < n; i++) {
		k = "lock:" i; v = "owner-" i
		printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$2\r\nPX\r\n$7\r\n3600000\r\n", length(k), k, length(v), v
	}
}' | redis-cli -p $port --pipe >/dev/null
redis-cli -p $port save >/dev/null
kill $fill; wait $fill 2>/dev/null || true
redis-check-rdb "$work/dump.rdb" | tail -3
echo "file: $(stat -c %s "$work/dump.rdb") bytes"

start() { # name cmd...
	local name=$1; shift
	local s e pid cpu logged
	s=$(date +%s.%N)
	"$@" >"$work/$name.log" 2>&1 &
	pid=$!
	until [ "$(redis-cli -p $port ping 2>/dev/null)" == "PONG" ]; do sleep 0.005; done
	e=$(date +%s.%N)
	cpu=$(awk '{print ($14+$15)/100}' /proc/$pid/stat)
	logged=$(grep -o 'DB loaded from disk: [0-9.]* seconds\|seconds=[0-9.]*' "$work/$name.log" | grep -o '[0-9][0-9.]*')
	printf '%-9s load %6.3f s  exec-to-PONG %6.3f s  cpu %5.2f s  keys %s  rss %s KiB\n' \
		"$name" "$logged" "$(echo "$e - $s" | bc)" "$cpu" "$(redis-cli -p $port dbsize)" "$(ps -o rss= -p $pid)"
	kill $pid; wait $pid 2>/dev/null || true
}
for i in $(seq "$runs"); do
	start redis redis-server --port $port --save '' --appendonly no --dir "$work"
	start minilock "$work/minilock" --port $port --dir "$work"
done
echo "load: $(uptime)"
