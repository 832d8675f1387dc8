#!/bin/bash
# usage: bench/overhead.sh
# Benchmark 1: kdamond CPU time with 0, 1, 2 and 4 data probes (1 and 3
# filters each) against DAMON on the stock 6.12 base, same workload, same
# guest, sample/aggr 5 ms/100 ms and 5 ms/2 s, RUNS runs each, both kernels
# booted one after the other in this one run.  Writes the table to
# bench/results/overhead.md (with the raw JSON lines).
# Environment: RUNS (5), RUN_SECONDS per run (4), MEM (2G).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
"$REPO/scripts/build-guest.sh"
stock=$("$REPO/bench/build-stock.sh")
make -s -C "$REPO/tools" OUT="$BUILD/tools"
raw=$LOGS/bench-overhead.jsonl
: >"$raw"
for kernel in stock patched; do
	if [ $kernel = stock ]; then kopt=(-k "$stock") cfg=stock
	else kopt=() cfg="0 1x1 1x3 2x1 2x3 4x1 4x3"; fi
	say "running the $kernel kernel"
	MEM=${MEM:-2G} TIMEOUT=3000 VM_LOG=$LOGS/bench-overhead-$kernel.log \
		"$REPO/scripts/run-vm.sh" -e TICKER=0 "${kopt[@]}" -e KERNEL=$kernel -e "CONFIGS=$cfg" \
		-e "RUNS=${RUNS:-5}" -e "RUN_SECONDS=${RUN_SECONDS:-4}" \
		-- python3 "$REPO/bench/overhead-guest.py" | grep '^{' >>"$raw" ||
		die "the $kernel run failed (log: $LOGS/bench-overhead-$kernel.log)"
done
python3 "$REPO/bench/report.py" overhead "$raw"
