#!/bin/bash
# usage: bench/mainline.sh
# Benchmark 5: the series against mainline 7.3 itself (Debian's
# linux-source-7.3, bench/setup-mainline.sh), same guest config, workload,
# regions, intervals, probe configurations and rounds: the method of
# bench/overhead.sh (icount: instructions per region sample), with the
# filter types mainline 7.3 has (FILTERS=mainline: memcg and anon).
# Configurations 0, 1x1, 4x1, 4x3, 4x3m; paddr and vaddr (mainline
# evaluates no probe on vaddr: its vaddr rows show what probes cost it
# there, which is nothing, and give no result); and stock 6.12 (the
# series' base, no probes), so that what the two DAMON cores cost apart
# from the probes shows in the same run.  Writes
# bench/results/mainline.md (bench/report.py mainline).
# Environment: REPS (5), SEG_SECONDS (4), OPS ("paddr vaddr").
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$REPO/bench/lib.sh"
out=$BUILD/x86-bench
t=$(date +%s)
bench_kernels series mainline stock
say "kernels built in $(since "$t")s"
raw=$LOGS/bench-mainline.jsonl
: >"$raw"
for k in series mainline stock; do
	cfg="0 1x1 4x1 4x3 4x3m"
	[ "$k" != stock ] || cfg=stock
	ICOUNT=1 SMP=1 MEM=1G TIMEOUT=3600 bench_boot mainline "$k" "$raw" -e TICKER=0 \
		-e FILTERS=mainline -e "CONFIGS=$cfg" -e "REPS=${REPS:-5}" \
		-e "SEG_SECONDS=${SEG_SECONDS:-4}" -e "OPS=${OPS:-paddr vaddr}" \
		-- python3 "$REPO/bench/overhead-guest.py"
done
SERIES=$(cat "$out/bzImage-series.commit") \
	SMP=1 MEM=1G python3 "$REPO/bench/report.py" mainline "$raw"
say "bench/mainline.sh: $(since "$t")s"
