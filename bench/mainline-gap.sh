#!/bin/bash
# usage: bench/mainline-gap.sh
# Where mainline 7.3's kdamond saves instructions per region sample against
# stock 6.12 at 0 probes, function by function: the kernels, workload,
# regions and intervals of bench/mainline.sh (icount), one boot of each
# with the QEMU TCG plugin bench/winprof/winprof.c, which counts every guest
# kernel instruction run in DAMON's sampling functions, in the rest of
# kdamond_fn and per address; bench/mainline-gap.py maps the addresses to
# the functions of each kernel's vmlinux (kept by bench/build-bench.sh as
# $BUILD/x86-bench/vmlinux-<kernel>), groups them, states each group's
# cause and writes bench/results/mainline-gap.md.
# Environment: REPS (2), SEG_SECONDS (4), OPS ("paddr vaddr").
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$REPO/bench/lib.sh"
out=$BUILD/x86-bench
t=$(date +%s)
plugin=$BUILD/winprof.so src=$REPO/bench/winprof/winprof.c
if [ ! -e "$plugin" ] || [ "$src" -nt "$plugin" ]; then
	gcc -shared -fPIC -O2 -Wall -o "$plugin" "$src"
fi
bench_kernels mainline stock
say "kernels built in $(since "$t")s"
raw=$LOGS/bench-mainline-gap.jsonl
: >"$raw"
for k in stock mainline; do
	cfg=0
	[ "$k" != stock ] || cfg=stock
	counts=$LOGS/bench-mainline-gap-$k.counts
	rm -f "$counts"
	rules=$(python3 "$REPO/bench/mainline-gap.py" rules "$out/vmlinux-$k")
	ICOUNT=1 SMP=1 MEM=1G TIMEOUT=3600 \
		QEMU_EXTRA="-plugin $plugin,$rules,out=$counts" \
		bench_boot mainline-gap "$k" "$raw" -e TICKER=0 \
		-e FILTERS=mainline -e "CONFIGS=$cfg" -e "REPS=${REPS:-2}" \
		-e "SEG_SECONDS=${SEG_SECONDS:-4}" -e "OPS=${OPS:-paddr vaddr}" \
		-- python3 "$REPO/bench/overhead-guest.py"
	[ -s "$counts" ] || die "the '$k' run left no plugin counts ($counts)"
done
STOCK=$(cat "$out/bzImage-stock.commit") python3 "$REPO/bench/mainline-gap.py" \
	report "$raw" "$out/vmlinux-stock" "$LOGS/bench-mainline-gap-stock.counts" \
	"$out/vmlinux-mainline" "$LOGS/bench-mainline-gap-mainline.counts"
say "bench/mainline-gap.sh: $(since "$t")s"
