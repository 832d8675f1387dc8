#!/bin/bash
# usage: scripts/check-series.sh
# 1. Every patch applies: re-create the tree with scripts/tree.sh.
# 2. The x86_64 guest kernel builds after EACH patch: check out each commit of
#    base..series in order and build incrementally (scripts/build-guest.sh).
#    With no patches, the base tree is built once.
# Dies naming the patch file and subject that broke the build.  Leaves the
# tree on branch series, built.  Prints "N passed, N failed" (one per patch).
set -eu
. "$(dirname "$0")/lib.sh"

"$REPO/scripts/tree.sh"
cd "$TREE"
mapfile -t files < <(series_patches)
mapfile -t commits < <(git rev-list --reverse base..series)
[ ${#files[@]} -eq ${#commits[@]} ] || die "internal: ${#files[@]} patch files but ${#commits[@]} commits"
if [ ${#commits[@]} -eq 0 ]; then
	say "no patches in $PATCHES: building the base tree"
	"$REPO/scripts/build-guest.sh" || { echo "0 passed, 1 failed"; die "the base tree does not build"; }
	echo "1 passed, 0 failed"
	exit 0
fi
trap 'git -C "$TREE" checkout -q series' EXIT
for i in "${!commits[@]}"; do
	c=${commits[$i]} f=${files[$i]##*/}
	subj=$(git log -1 --format=%s "$c")
	git checkout -q "$c"
	say "[$((i + 1))/${#commits[@]}] building with $f: $subj"
	if ! "$REPO/scripts/build-guest.sh"; then
		echo "$i passed, 1 failed"
		die "the x86 guest kernel does not build after patch $f ($subj)"
	fi
done
echo "${#commits[@]} passed, 0 failed"
