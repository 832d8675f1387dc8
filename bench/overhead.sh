#!/bin/bash
# usage: bench/overhead.sh
# Benchmark 1: the cost of a region sample of kdamond with data probes,
# measured in guest instructions: QEMU with -icount shift=0,sleep=off and
# single-threaded TCG (run-vm.sh ICOUNT=1), so that the guest's clock counts
# instructions (1 ns each) whatever the host's load.  Builds three kernels
# with bench/build-bench.sh: "series", "emulation" (the series +
# bench/mainline-approach.diff, an emulation of mainline's paddr probe pass:
# bench/mainline.sh measures mainline itself) and "stock" (the base).  Boots each once (SMP=1, MEM=1G) to run
# bench/overhead-guest.py: fixed regions, static workload, the series'
# probe configurations committed in turn within one boot; then writes
# bench/results/overhead.md (bench/report.py overhead).
# Environment: REPS (5), SEG_SECONDS (4, guest seconds per segment), OPS
# ("paddr vaddr").
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$REPO/bench/lib.sh"
t=$(date +%s)
bench_kernels series emulation stock
say "kernels built in $(since "$t")s"

raw=$LOGS/bench-overhead.jsonl
: >"$raw"
for k in stock series emulation; do
	case $k in
	stock) cfg=stock ;;
	series) cfg="0 1x1 1x3 2x3 4x1 4x3 4x3m" ;;
	emulation) cfg="0 4x3 4x3m" ;;
	esac
	ICOUNT=1 SMP=1 MEM=1G TIMEOUT=3600 bench_boot overhead "$k" "$raw" -e TICKER=0 \
		-e "CONFIGS=$cfg" -e "REPS=${REPS:-5}" -e "SEG_SECONDS=${SEG_SECONDS:-4}" \
		-e "OPS=${OPS:-paddr vaddr}" \
		-- python3 "$REPO/bench/overhead-guest.py"
done
SERIES=$(cat "$BUILD/x86-bench/bzImage-series.commit") BASE=$(git -C "$TREE" rev-parse base) SMP=1 MEM=1G python3 "$REPO/bench/report.py" overhead "$raw"
say "bench/overhead.sh: $(since "$t")s"
