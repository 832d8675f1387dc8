#!/bin/bash
# usage: bench/commit.sh
# Benchmark: the cost of a sysfs 'commit' at 1k, 10k, 100k and 300k regions
# (SIZES), in guest instructions (QEMU icount, as bench/overhead.sh), for the
# series and for stock 6.12 (bench/build-bench.sh series stock).  Boots each
# kernel once (SMP=1, MEM=2G: 300k regions need 300k pages in the biggest
# System RAM range) to run bench/commit-guest.py, then writes
# bench/results/commit.md (bench/report.py commit).
# Environment: SIZES ("1000 10000 100000 300000"), REPS (5 commits per size).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$REPO/bench/lib.sh"
out=$BUILD/x86-bench
t=$(date +%s)
"$REPO/bench/build-bench.sh" series stock >/dev/null
say "kernels built in $(since "$t")s"
raw=$LOGS/bench-commit.jsonl
: >"$raw"
for k in stock series; do
	ICOUNT=1 SMP=1 MEM=2G TIMEOUT=5400 bench_boot commit "$k" "$raw" -e TICKER=0 \
		-e "SIZES=${SIZES:-1000 10000 100000 300000}" -e "REPS=${REPS:-5}" \
		-- python3 "$REPO/bench/commit-guest.py"
done
SERIES=$(cat "$out/bzImage-series.commit") BASE=$(git -C "$TREE" rev-parse base) SMP=1 MEM=2G \
	python3 "$REPO/bench/report.py" commit "$raw"
say "bench/commit.sh: $(since "$t")s"
