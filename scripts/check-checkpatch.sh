#!/bin/bash
# usage: scripts/check-checkpatch.sh
# scripts/checkpatch.pl --strict on every $PATCHES/*.patch except the cover
# letter.  A patch passes with 0 errors and 0 warnings, and 0 CHECKs unless its
# commit message or its notes below "---" have a line "checkpatch: <why the
# CHECKs are fine>".  The
# FILE_PATH_CHANGES warning is not reported for a patch whose added or
# deleted files MAINTAINERS already covers (an F: entry of their directory).  Shows
# checkpatch's report for and names every failing patch.  With no patches there
# is nothing to check (passes).  Prints "N passed, N failed" (one per patch).
set -eu
. "$(dirname "$0")/lib.sh"
[ -x "$TREE/scripts/checkpatch.pl" ] || die "no kernel tree in $TREE: run scripts/setup-base.sh"
mapfile -t files < <(series_patches)
[ ${#files[@]} -gt 0 ] || { say "no patches in $PATCHES: nothing for checkpatch"; echo "0 passed, 0 failed"; exit 0; }

# new_files_maintained <patch>: true if the patch adds or deletes files and a
# directory or file F: entry of $TREE/MAINTAINERS matches each of them
new_files_maintained() {
	local path d found=1
	mapfile -t paths < <(sed '/^diff --git/q' "$1" | sed -n 's/^ \(create\|delete\) mode [0-7]* //p')
	[ ${#paths[@]} -gt 0 ] || return 1
	for path in "${paths[@]}"; do
		found=
		d=$path
		while [ -n "$d" ]; do
			grep -qxF "F:	$d" "$TREE/MAINTAINERS" && { found=1; break; }
			[ "$d" != "${d%/*}" ] || break
			d=${d%/*}
			grep -qxF "F:	$d/" "$TREE/MAINTAINERS" && { found=1; break; }
		done
		[ -n "$found" ] || return 1
	done
}

bad=()
for p in "${files[@]}"; do
	f=${p##*/}
	# checkpatch warns about every added or deleted file ("does MAINTAINERS
	# need updating?"); the answer is no when a MAINTAINERS F: pattern of the
	# tree already covers each of them (e.g. a new mm/damon/tests/*.h).
	ignore=()
	if new_files_maintained "$p"; then ignore=(--ignore FILE_PATH_CHANGES); fi
	out=$(cd "$TREE" && ./scripts/checkpatch.pl --strict --color=never --show-types \
		"${ignore[@]}" "$p" 2>&1) || true
	total=$(grep -E '^total: [0-9]+ errors, [0-9]+ warnings' <<<"$out" | tail -1)
	read -r e w c < <(sed -E 's/^total: ([0-9]+) errors, ([0-9]+) warnings, ([0-9]+) checks.*/\1 \2 \3/' <<<"$total") || true
	# justification: a "checkpatch: ..." line in the commit message or in
	# the notes below its "---" (anything before the diff)
	why=$(sed '/^diff --git /q' "$p" | sed -n 's/^checkpatch: *\(..*\)/\1/p' | head -1)
	if [ -z "$total" ]; then
		echo "$out" >&2; say "FAIL $f: checkpatch gave no summary"; bad+=("$f")
	elif [ "$e" != 0 ] || [ "$w" != 0 ] || { [ "$c" != 0 ] && [ -z "$why" ]; }; then
		sed '/^total:/,$d; /^$/d; s/^/    /' <<<"$out" >&2
		hint=
		[ "$e$w" != 00 ] || hint=" (CHECKs are allowed only with a line 'checkpatch: <justification>' in the commit message or its notes)"
		say "FAIL $f: $e errors, $w warnings, $c checks$hint"
		bad+=("$f")
	else
		say "ok   $f: 0 errors, 0 warnings, $c checks${why:+ (justified: $why)}"
	fi
done
echo "$(( ${#files[@]} - ${#bad[@]} )) passed, ${#bad[@]} failed"
[ ${#bad[@]} -eq 0 ] || die "checkpatch --strict: ${bad[*]}"
