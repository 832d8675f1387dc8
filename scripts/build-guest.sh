#!/bin/bash
# usage: scripts/build-guest.sh [debug]
# Configure (kconfig_build in lib.sh: only when something changed) and
# incrementally build the x86_64 guest kernel of the tree's current checkout:
#   normal: $BUILD/x86        = allnoconfig + configs/guest.config
#   debug:  $BUILD/x86-debug  = allnoconfig + configs/guest.config + configs/debug.config
# Every line of the fragments must hold in the final .config.  Uses ccache
# when installed.
# Environment: TARGETS (make targets, default bzImage), LENIENT=1 (tolerate
# fragment symbols that the checked-out Kconfig does not define yet).
# Output goes to $LOGS/build-<name>.log; on failure the errors are printed.
set -eu
. "$(dirname "$0")/lib.sh"

kind=${1:-normal}
case $kind in
normal) name=x86;       frags=("$REPO/configs/guest.config") ;;
debug)  name=x86-debug; frags=("$REPO/configs/guest.config" "$REPO/configs/debug.config") ;;
*) die "usage: $0 [debug]" ;;
esac
out=$BUILD/$name
log=$LOGS/build-$name.log
[ -e "$TREE/.git" ] || die "no kernel tree in $TREE: run scripts/setup-base.sh"

fail() { # <what>: show the interesting part of the log and die
	grep -E -A3 'error:|Error [0-9]+|\*\*\*|undefined reference' "$log" | tail -40 >&2 || tail -40 "$log" >&2
	die "$1 (full log: $log)"
}

t=$(date +%s)
kconfig_build "$TREE" "$out" x86_64 "${frags[@]}"
: >"$log"

targets=${TARGETS:-bzImage}
say "building $name $targets (-j$JOBS${USE_CCACHE:+, ccache})"
# shellcheck disable=SC2086
kmake "$out" -j"$JOBS" $targets >>"$log" 2>&1 || fail "building $name $targets"
say "$name: $targets built in $(since "$t")s"
