#!/bin/bash
# usage: scripts/check-checkpatch.sh
# scripts/checkpatch.pl --strict on every $PATCHES/*.patch except the cover
# letter.  A patch passes with 0 errors and 0 warnings, and 0 CHECKs unless its
# commit message has a line "checkpatch: <why the CHECKs are fine>".  Shows
# checkpatch's report for and names every failing patch.  With no patches there
# is nothing to check (passes).  Prints "N passed, N failed" (one per patch).
set -eu
. "$(dirname "$0")/lib.sh"
[ -x "$TREE/scripts/checkpatch.pl" ] || die "no kernel tree in $TREE: run scripts/setup-base.sh"
mapfile -t files < <(series_patches)
[ ${#files[@]} -gt 0 ] || { say "no patches in $PATCHES: nothing for checkpatch"; echo "0 passed, 0 failed"; exit 0; }

bad=()
for p in "${files[@]}"; do
	f=${p##*/}
	out=$(cd "$TREE" && ./scripts/checkpatch.pl --strict --color=never --show-types "$p" 2>&1) || true
	total=$(grep -E '^total: [0-9]+ errors, [0-9]+ warnings' <<<"$out" | tail -1)
	read -r e w c < <(sed -E 's/^total: ([0-9]+) errors, ([0-9]+) warnings, ([0-9]+) checks.*/\1 \2 \3/' <<<"$total") || true
	# justification: a "checkpatch: ..." line in the commit message (before the first ---)
	why=$(sed '/^---$/q' "$p" | sed -n 's/^checkpatch: *\(..*\)/\1/p' | head -1)
	if [ -z "$total" ]; then
		echo "$out" >&2; say "FAIL $f: checkpatch gave no summary"; bad+=("$f")
	elif [ "$e" != 0 ] || [ "$w" != 0 ] || { [ "$c" != 0 ] && [ -z "$why" ]; }; then
		sed '/^total:/,$d; /^$/d; s/^/    /' <<<"$out" >&2
		hint=
		[ "$e$w" != 00 ] || hint=" (CHECKs are allowed only with a line 'checkpatch: <justification>' in the commit message)"
		say "FAIL $f: $e errors, $w warnings, $c checks$hint"
		bad+=("$f")
	else
		say "ok   $f: 0 errors, 0 warnings, $c checks${why:+ (justified: $why)}"
	fi
done
echo "$(( ${#files[@]} - ${#bad[@]} )) passed, ${#bad[@]} failed"
[ ${#bad[@]} -eq 0 ] || die "checkpatch --strict: ${bad[*]}"
