#!/bin/bash
# usage: bench/lookups.sh
# What sharing the access check's folio with the probes saves:
# builds the series with the ftrace function profiler
# (configs/guest.config + configs/bench-prof.config) twice in a worktree
# ($BUILD/linux-prof, output $BUILD/x86-prof): "one", the series as is, and
# "two", the series plus bench/two-lookups.diff (the probes look the folio up
# again).  Then boots the two kernels alternately, BOOTS times each, RUNS
# runs per boot (bench/lookups-guest.py), and writes the table to
# bench/results/lookups.md: folio lookups per region sample (exact counts)
# and the time of damon_pa_check_accesses() per call (TCG: compare the
# ratio, not the absolute numbers).
# Environment: BOOTS (2), RUNS (3), RUN_SECONDS (5), MEM (2G).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
wt=$BUILD/linux-prof out=$BUILD/x86-prof log=$LOGS/build-x86-prof.log
series=$(git -C "$TREE" rev-parse series)
[ -e "$wt/.git" ] || git -C "$TREE" worktree add -q --detach "$wt" "$series"
git -C "$wt" checkout -q --detach "$series"
git -C "$wt" checkout -q -- mm/damon/paddr.c
kconfig_build "$wt" "$out" x86_64 "$REPO/configs/guest.config" "$REPO/configs/bench-prof.config"
: >"$log"
grep -q '^CONFIG_FUNCTION_PROFILER=y' "$out/.config" || die "no CONFIG_FUNCTION_PROFILER in $out/.config"
for v in one two; do
	[ $v = one ] || git -C "$wt" apply "$REPO/bench/two-lookups.diff"
	say "building the profiling kernel '$v' (log: $log)"
	TREE=$wt kmake "$out" -j"$JOBS" bzImage >>"$log" 2>&1 || { tail -30 "$log"; die "building '$v'"; }
	cp "$out/arch/x86/boot/bzImage" "$out/bzImage-$v"
done
git -C "$wt" checkout -q -- mm/damon/paddr.c
make -s -C "$REPO/tools" OUT="$BUILD/tools"

raw=$LOGS/bench-lookups.jsonl
: >"$raw"
for boot in $(seq "${BOOTS:-2}"); do
	for v in one two; do
		say "boot $boot: kernel '$v'"
		MEM=${MEM:-2G} TIMEOUT=1200 VM_LOG=$LOGS/bench-lookups-$v.log \
			"$REPO/scripts/run-vm.sh" -e TICKER=0 -k "$out/bzImage-$v" -e KERNEL=$v \
			-e "RUNS=${RUNS:-3}" -e "RUN_SECONDS=${RUN_SECONDS:-5}" \
			-- python3 "$REPO/bench/lookups-guest.py" | grep '^{' >>"$raw" ||
			die "the '$v' run failed (log: $LOGS/bench-lookups-$v.log)"
	done
done
python3 "$REPO/bench/report.py" lookups "$raw"
