#!/bin/bash
# usage: bench/accuracy-mainline.sh
# Accuracy side by side: the 'ratio' case of bench/accuracy-guest.py (the
# static paddr layout of the accuracy benchmark, windows read as tried
# regions) at 20 and 400 samples per window, on the series and on
# mainline 7.3, each in its own boot of the benchmark kernels
# (bench/build-bench.sh series mainline), one guest process per ratio.  Writes
# bench/results/accuracy-mainline.md.  Environment: NWIN (200 windows at
# 20 samples, half of it at 400), RATIOS ("20 400").
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$REPO/bench/lib.sh"
t=$(date +%s)
bench_kernels series mainline
raw=$LOGS/bench-accuracy-mainline.jsonl
: >"$raw"
for k in series mainline; do
	# shellcheck disable=SC2016 # $RATIOS and $GUEST expand in the guest
	MEM=2G TIMEOUT=3600 bench_boot accuracy-mainline "$k" "$raw" \
		-e "NWIN=${NWIN:-200}" -e "RATIOS=${RATIOS:-20 400}" -e "GUEST=$REPO/bench/accuracy-guest.py" \
		-- sh -c 'for r in $RATIOS; do RATIOS=$r python3 "$GUEST" ratio || exit; done'
done
SERIES=$(cat "$BUILD/x86-bench/bzImage-series.commit") \
	python3 "$REPO/bench/report.py" accuracy-mainline "$raw"
say "bench/accuracy-mainline.sh: $(since "$t")s"
