#!/bin/bash
# usage: scripts/build-guest.sh [debug]
# Configure (only when the config fragment or the tree's Kconfig files changed,
# or there is no .config) and
# incrementally build the x86_64 guest kernel of the tree's current checkout:
#   normal: $BUILD/x86        = allnoconfig + configs/guest.config
#   debug:  $BUILD/x86-debug  = allnoconfig + configs/guest.config + configs/debug.config
# Every CONFIG_ line of the fragment must be in the final .config (Kconfig drops
# symbols with unmet dependencies silently).  Uses ccache when installed.
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
[ -d "$TREE/.git" ] || die "no kernel tree in $TREE: run scripts/setup-base.sh"
mkdir -p "$out"

fail() { # <what>: show the interesting part of the log and die
	grep -E -A3 'error:|Error [0-9]+|\*\*\*|undefined reference|Kconfig' "$log" | tail -40 >&2 || tail -40 "$log" >&2
	die "$1 (full log: $log)"
}

t=$(date +%s)
frag=$out/harness-fragment.config
cat "${frags[@]}" >"$frag"
# Re-configure when the fragment or the tree's Kconfig files changed (checking
# out another commit of the series can add or remove symbols), or no .config.
key=$( { cat "$frag"; git -C "$TREE" ls-files -s -- ':(glob)**/Kconfig*'
	git -C "$TREE" diff HEAD -- ':(glob)**/Kconfig*'; } | md5sum)
if [ ! -f "$out/.config" ] || [ "$key" != "$(cat "$out/harness-config.key" 2>/dev/null)" ]; then
	say "configuring $name (allnoconfig + ${frags[*]##*/})"
	rm -f "$out/harness-config.key"
	kmake "$out" KCONFIG_ALLCONFIG="$frag" allnoconfig >"$log" 2>&1 || fail "configuring $name"
	echo "$key" >"$out/harness-config.key"
else
	: >"$log"
fi
missing=$(grep '^CONFIG_' "$frag" | while read -r l; do
	grep -qxF "$l" "$out/.config" && continue
	sym=${l%%=*}; sym=${sym#CONFIG_}
	# LENIENT=1 (check-series.sh, for all but the last patch): a symbol that
	# this checkout's Kconfig does not define yet is fine
	if [ -n "${LENIENT:-}" ] && ! git -C "$TREE" grep -qE "^\s*(menu)?config $sym\s*\$" -- ':(glob)**/Kconfig*'; then
		echo "NOTE: $l not in this checkout's Kconfig yet" >&2; continue
	fi
	echo "$l"; done)
[ -z "$missing" ] || { rm -f "$out/harness-config.key"
	die "config fragment lines missing from $out/.config (unmet dependencies?):" $missing; }

targets=${TARGETS:-bzImage}
say "building $name $targets (-j$JOBS${USE_CCACHE:+, ccache})"
# shellcheck disable=SC2086
kmake "$out" -j"$JOBS" $targets >>"$log" 2>&1 || fail "building $name $targets"
say "$name: $targets built in $(since "$t")s"
