#!/bin/sh
# Benchmark minilock against redis-server and miniredis: bench/run.sh [sidebyside|manyclients|profile|audit] [flags]; -quick to try it out, -h for flags.
cd "$(dirname "$0")/.." && exec go run ./bench/cmd/sidebyside "$@"
