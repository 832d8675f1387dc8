#!/bin/bash
# usage: bench/build-bench.sh series|emulation|stock|mainline...
# Build the benchmark kernels, configs/guest.config + configs/bench-prof.config
# (the ftrace function profiler), in the worktree $BUILD/linux-bench of $TREE
# with one output directory, $BUILD/x86-bench, so that switching kernels
# rebuilds only what differs: "series" (tag base + the patches of $PATCHES,
# applied with git am on a detached HEAD once per set of patches; the commit
# is kept in $BUILD/x86-bench/series-commit), "emulation" (the series +
# bench/mainline-approach.diff: an emulation of mainline's paddr probe pass
# on the series, not mainline) and "stock" (tag base).  "mainline" is the
# real one: Debian's linux-source-7.3 (bench/setup-mainline.sh) with the
# same fragments (symbols that 7.3 no longer has are left out, LENIENT=1),
# in $BUILD/x86-mainline.
# Prints the path of each bzImage ($BUILD/x86-bench/bzImage-<kernel>); its
# vmlinux (the symbols of that build) is kept beside it as vmlinux-<kernel>.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
wt=$BUILD/linux-bench out=$BUILD/x86-bench log=$LOGS/build-x86-bench.log
base=$(git -C "$TREE" rev-parse base)
[ -e "$wt/.git" ] || git -C "$TREE" worktree add -q --detach "$wt" "$base"
mkdir -p "$out"
: >"$log"
series_commit() { # the commit of base + patches/, made once per set of patches
	local key c
	key=$( { echo "$base"; series_patches | xargs cat; } | md5sum | cut -d' ' -f1)
	c=$(sed -n "s/^$key //p" "$out/series-commit" 2>/dev/null)
	if [ -z "$c" ] || ! git -C "$wt" cat-file -e "$c^{commit}" 2>/dev/null; then
		git -C "$wt" checkout -q --detach "$base"
		series_patches | xargs git -C "$wt" -c user.name=bench -c user.email=bench@localhost \
			am -q --committer-date-is-author-date >>"$log" 2>&1 ||
			{ git -C "$wt" am --abort 2>/dev/null; die "the patches of $PATCHES do not apply to base"; }
		c=$(git -C "$wt" rev-parse HEAD)
		echo "$key $c" >"$out/series-commit"
	fi
	echo "$c"
}
for k in "$@"; do
	if [ "$k" = mainline ]; then
		"$REPO/bench/setup-mainline.sh"
		mout=$BUILD/x86-mainline
		LENIENT=1 kconfig_build "$BUILD/mainline" "$mout" x86_64 \
			"$REPO/configs/guest.config" "$REPO/configs/bench-prof.config"
		say "building the 'mainline' kernel ($(git -C "$BUILD/mainline" config damon.mainlineversion); log: $log)"
		TREE=$BUILD/mainline kmake "$mout" -j"$JOBS" bzImage >>"$log" 2>&1 ||
			{ tail -30 "$log"; die "building 'mainline'"; }
		cp "$mout/arch/x86/boot/bzImage" "$out/bzImage-mainline"
		cp "$mout/vmlinux" "$out/vmlinux-mainline"
		git -C "$BUILD/mainline" rev-parse HEAD >"$out/bzImage-mainline.commit"
		echo "$out/bzImage-mainline"
		continue
	fi
	git -C "$wt" checkout -q -- mm/damon
	case $k in
	series|emulation) git -C "$wt" checkout -q --detach "$(series_commit)" ;;
	stock) git -C "$wt" checkout -q --detach "$base" ;;
	*) die "unknown kernel '$k' (series, emulation, stock, mainline)" ;;
	esac
	[ "$k" != emulation ] || git -C "$wt" apply "$REPO/bench/mainline-approach.diff"
	kconfig_build "$wt" "$out" x86_64 "$REPO/configs/guest.config" "$REPO/configs/bench-prof.config"
	say "building the '$k' kernel at $(git -C "$wt" rev-parse --short HEAD) (log: $log)"
	TREE=$wt kmake "$out" -j"$JOBS" bzImage >>"$log" 2>&1 || { tail -30 "$log"; die "building '$k'"; }
	cp "$out/arch/x86/boot/bzImage" "$out/bzImage-$k"
	cp "$out/vmlinux" "$out/vmlinux-$k"
	git -C "$wt" rev-parse HEAD >"$out/bzImage-$k.commit"
	git -C "$wt" checkout -q -- mm/damon
	echo "$out/bzImage-$k"
done
