#!/bin/bash
# usage: scripts/export-series.sh
# Export the commits base..series of $BUILD/linux to $PATCHES (default patches/)
# with git format-patch: stable file names (0001-<subject>.patch ...), zeroed
# "From <hash>" lines, no git-version signature, and 0000-cover-letter.patch
# generated from the branch description (first paragraph = subject), which
# tree.sh takes from the cover letter.  Edit it with:
#   git -C build/linux branch --edit-description series
# Patch files that are no longer part of the series are removed; unchanged
# files are not rewritten, so re-running without changes is a no-op.
# The series revision ([PATCH vN NN/MM] subjects) is kept from the exported
# cover letter; SERIES_VERSION=N starts a new one.
set -eu
. "$(dirname "$0")/lib.sh"
cd "$TREE" 2>/dev/null && git rev-parse -q --verify refs/tags/base >/dev/null ||
	die "no base tree in $TREE: run scripts/setup-base.sh"
git rev-parse -q --verify refs/heads/series >/dev/null || die "no branch 'series' in $TREE: run scripts/tree.sh"
n=$(git rev-list --count base..series)
[ "$n" -gt 0 ] || die "branch series has no commits on top of base: nothing to export ($PATCHES left untouched)"
git config branch.series.description >/dev/null ||
	die "no cover letter text: run 'git -C $TREE branch --edit-description series' (first line: subject)"
[ "$(git symbolic-ref -q --short HEAD || true)" = series ] ||
	say "WARNING: HEAD is not on branch series; exporting branch series anyway"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	say "WARNING: $TREE has uncommitted changes; they are NOT exported (commit them first)"

version=${SERIES_VERSION:-$(sed -n 's/^Subject: \[PATCH v\([0-9]\+\) .*/\1/p' \
	"$PATCHES/0000-cover-letter.patch" 2>/dev/null || true)}
prefix=PATCH
[ -z "$version" ] || [ "$version" = 1 ] || prefix="PATCH v$version"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Reproducible output: no user/system git config (format.*, diff.*), the cover
# letter's From/Date taken from the series itself instead of "now".
GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
GIT_COMMITTER_NAME=$(git log --reverse --format=%an base..series | head -1) \
GIT_COMMITTER_EMAIL=$(git log --reverse --format=%ae base..series | head -1) \
GIT_COMMITTER_DATE=$(git log -1 --format=%ad --date=raw series) \
	git -c safe.directory="$TREE" format-patch -q --zero-commit --no-signature --abbrev=12 \
	--cover-letter --cover-from-description=subject --subject-prefix="$prefix" \
	-o "$tmp" base..series
grep -q '\*\*\* SUBJECT HERE \*\*\*' "$tmp/0000-cover-letter.patch" &&
	die "cover letter subject is empty: fix the branch description (git branch --edit-description series)"

mkdir -p "$PATCHES"
changed=0 removed=0
for f in "$PATCHES"/*.patch; do
	[ -e "$f" ] && [ ! -e "$tmp/${f##*/}" ] || continue
	rm -f "$f"; removed=$((removed + 1)); say "removed stale ${f##*/}"
done
for f in "$tmp"/*.patch; do
	cmp -s "$f" "$PATCHES/${f##*/}" && continue
	cp "$f" "$PATCHES/"; changed=$((changed + 1)); say "wrote ${f##*/}"
done
say "exported $n patch(es) [$prefix] + cover letter to $PATCHES ($changed written, $removed removed, rest unchanged)"
