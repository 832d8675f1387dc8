#!/bin/bash
# usage: bench/region-size.sh
# Memory per DAMON region on the running kernel, without data probes and
# with them: the series, stock 6.12 (its base) and mainline 7.3, one boot
# each, bench/region-size-guest.py in the guest (the slab growth of a
# paddr kdamond with NR_REGIONS fixed regions, per region).  Writes
# bench/results/region-size.md (bench/report.py region-size).
# Environment: NR_REGIONS (20000), REPS (3).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$REPO/bench/lib.sh"
t=$(date +%s)
bench_kernels series mainline stock
raw=$LOGS/bench-region-size.jsonl
: >"$raw"
for k in series stock mainline; do
	probes=4
	[ "$k" != stock ] || probes=0
	SMP=1 MEM=1G TIMEOUT=1800 bench_boot region-size "$k" "$raw" -e "PROBES=$probes" \
		-e "NR_REGIONS=${NR_REGIONS:-20000}" -e "REPS=${REPS:-3}" \
		-- python3 "$REPO/bench/region-size-guest.py"
done
SERIES=$(cat "$BUILD/x86-bench/bzImage-series.commit") \
	SMP=1 MEM=1G python3 "$REPO/bench/report.py" region-size "$raw"
say "bench/region-size.sh: $(since "$t")s"
