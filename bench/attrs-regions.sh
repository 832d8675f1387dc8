#!/bin/bash
# usage: bench/attrs-regions.sh
# Region counts in attributes-only monitoring, the series against mainline
# 7.3 on the same input (bench/attrs-regions-guest.py: paddr, one 'allow
# anon' probe of weight 1, and of weight 0 for access monitoring, 128 MiB
# hot and 256 MiB cold anonymous memory in a 2 GiB guest, the number of
# regions every second for 20 s, 2 rounds), each kernel in its own boot of
# the benchmark kernels (bench/build-bench.sh series mainline).  Writes
# bench/results/attrs-regions.md.  Environment: REPS (2), DURATION (20; the committed table: DURATION=60).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$REPO/bench/lib.sh"
t=$(date +%s)
bench_kernels series mainline
raw=$LOGS/bench-attrs-regions.jsonl
: >"$raw"
for k in series mainline; do
	MEM=2G TIMEOUT=1800 bench_boot attrs-regions "$k" "$raw" \
		-e "REPS=${REPS:-2}" -e "DURATION=${DURATION:-20}" \
		-- python3 "$REPO/bench/attrs-regions-guest.py"
done
SERIES=$(cat "$BUILD/x86-bench/bzImage-series.commit") \
	python3 "$REPO/bench/report.py" attrs-regions "$raw"
say "bench/attrs-regions.sh: $(since "$t")s"
