# shellcheck shell=bash
# Sourced by the benchmark scripts after scripts/lib.sh.

# bench_boot <bench> <kernel> <raw> [run-vm.sh options...] -- <command...>
# Boots the benchmark kernel $BUILD/x86-bench/bzImage-<kernel> (built by
# bench/build-bench.sh) with KERNEL=<kernel> in the command's environment,
# appends the JSON lines the command prints to <raw>, and dies naming the
# kernel if the run fails.  Console log: $LOGS/bench-<bench>-<kernel>.log.
# run-vm.sh's environment (ICOUNT, SMP, MEM, TIMEOUT) is the caller's.
bench_boot() {
	local bench=$1 k=$2 raw=$3 log
	shift 3
	log=$LOGS/bench-$bench-$k.log
	say "running the '$k' kernel"
	VM_LOG=$log "$REPO/scripts/run-vm.sh" -k "$BUILD/x86-bench/bzImage-$k" \
		-e "KERNEL=$k" "$@" | grep '^{' >>"$raw" ||
		die "the '$k' run failed (log: $log)"
}

# bench_kernels <kernel...>: the benchmark kernels (bench/build-bench.sh)
# and the guest's C helpers (tools/), built if they are not up to date.
bench_kernels() {
	"$REPO/bench/build-bench.sh" "$@" >/dev/null
	make -s -C "$REPO/tools" OUT="$BUILD/tools"
}
