#!/bin/bash
# usage: scripts/check-sparse.sh
# sparse (make C=2 mm/damon/) on the x86 guest build dir; fails on warnings
# that the base tree does not have.  Warnings are compared without line and
# column numbers.  The base's warnings (3 on stock 6.12: context imbalance in
# damon_mkold_pmd_entry, damon_young_pmd_entry, damon_folio_young_one) are
# computed once by checking out tag base (the tree must be clean) and cached in
# $BUILD/x86/sparse-baseline.txt, keyed by base commit + config fragment.
# The warnings listed in configs/sparse-expected.txt, each with its reason,
# are expected of the series and do not fail the check.
# Prints "N passed, N failed" (1 check).  Output: $LOGS/sparse.log.
set -eu
. "$(dirname "$0")/lib.sh"
command -v sparse >/dev/null || die "sparse is not installed: run scripts/setup-deps.sh"
out=$BUILD/x86 log=$LOGS/sparse.log
unset cur
cd "$TREE"

sparse_warnings() { # -> sorted, normalised warnings of the current checkout
	# config and objects up to date first, so that only sparse's output is seen
	TARGETS=mm/damon/ LENIENT=${1:-} "$REPO/scripts/build-guest.sh" || exit 1
	kmake "$out" -s C=2 -j"$JOBS" mm/damon/ 2>"$log.raw" >/dev/null || { cat "$log.raw" >&2; die "make C=2 mm/damon/ failed"; }
	{ grep -E ': (warning|error):' "$log.raw" || true; } | sed -E "s#^(\\.\\./)*##; s#^$TREE/##; s#^linux/##; s/:[0-9]+(:[0-9]+)?: /: /" | sort
}

key="$(git rev-parse base) $(cat "$REPO/configs/guest.config" | md5sum)"
cache=$out/sparse-baseline.txt
if [ "$(head -1 "$cache" 2>/dev/null)" != "key: $key" ]; then
	if [ "$(git rev-parse HEAD)" = "$(git rev-parse base)" ] || [ -z "$(git diff base --stat)" ]; then
		say "sparse: computing the base tree's warnings (tree is at base)"
		base=$(sparse_warnings)
		cur=$base
	else
		[ -z "$(git status --porcelain --untracked-files=no)" ] ||
			die "sparse: the base warnings must be computed once from a clean tree: commit or stash your changes in $TREE"
		say "sparse: computing the base tree's warnings (checking out tag base once; cached afterwards)"
		head=$(git symbolic-ref -q --short HEAD || git rev-parse HEAD)
		trap 'git -C "$TREE" checkout -q "$head"' EXIT
		git checkout -q base
		base=$(sparse_warnings 1)
		git checkout -q "$head"
		trap - EXIT
	fi
	{ echo "key: $key"; echo "$base"; } >"$cache"
fi
base=$(tail -n +2 "$cache")
if [ -z "${cur+set}" ]; then
	say "sparse: make C=2 mm/damon/"
	cur=$(sparse_warnings)
fi
cp "$log.raw" "$log"
new=$(comm -13 <(echo "$base" | grep . || true) <(echo "$cur" | grep . || true))
# the series' expected warnings, each listed with its reason
expected=$(grep -v '^#' "$REPO/configs/sparse-expected.txt" | grep . | sort || true)
unseen=$(comm -23 <(echo "$expected" | grep . || true) <(echo "$new" | grep . || true))
[ -z "$unseen" ] || say "sparse: expected warnings not seen (configs/sparse-expected.txt): $(wc -l <<<"$unseen")"
new=$(comm -13 <(echo "$expected" | grep . || true) <(echo "$new" | grep . || true))
fixed=$(comm -23 <(echo "$base" | grep . || true) <(echo "$cur" | grep . || true))
[ -z "$fixed" ] || say "sparse: base warnings no longer present: $(wc -l <<<"$fixed")"
if [ -n "$new" ]; then
	# show them with line numbers, and the patch that last changed that line
	mapfile -t commits < <(git rev-list --reverse base..HEAD)
	mapfile -t files < <(series_patches)
	culprits=()
	echo "New sparse warnings (not in the base tree):" >&2
	while read -r l; do
		rel=$(sed -E "s#^(\\.\\./)*##; s#^$TREE/##; s#^linux/##" <<<"$l")
		grep -qxF "$(sed -E 's/:[0-9]+(:[0-9]+)?: /: /' <<<"$rel")" <<<"$new" || continue
		file=${rel%%:*} line=$(cut -d: -f2 <<<"$rel") who=
		c=$(git blame -s -l -L "$line,$line" HEAD -- "$file" 2>/dev/null | cut -c1-40 || true)
		for i in "${!commits[@]}"; do
			[ "${commits[$i]}" = "$c" ] && who="${files[$i]##*/}" && culprits+=("$who")
		done
		echo "  $rel${who:+   <- line from $who}" >&2
	done < <(grep -E ': (warning|error):' "$log")
	echo "0 passed, 1 failed"
	from=$(printf '%s\n' ${culprits[@]+"${culprits[@]}"} | sort -u | paste -sd' ')
	die "sparse: $(wc -l <<<"$new") new warning(s) in mm/damon/${from:+ from $from} (log: $log)"
fi
say "sparse: no new warnings ($(echo "$cur" | grep -c . || true) warnings, all in the base or expected)"
echo "1 passed, 0 failed"
