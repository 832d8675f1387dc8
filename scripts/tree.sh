#!/bin/bash
# usage: scripts/tree.sh
# (Re)create the patched tree $BUILD/linux: branch "series" = tag "base" +
# git am --committer-date-is-author-date of $PATCHES/*.patch in name order
# (0000-cover-letter.patch is not applied: its subject and text become the
# branch description, from which scripts/export-series.sh regenerates it).
# A patch's notes, the text between its first "---" line and the "---" line
# above its diffstat, are kept at the end of the commit message, as git am
# would drop them, so that export-series.sh writes them out again.
#
# Safe to re-run: uncommitted changes are stashed first (git stash list), and if
# the old "series" had commits that differ from what patches/ gives, it is kept
# as branch backup/<date>.  Debian's top-level .gitignore ignores everything
# ("/*"): NEW files in the tree must be added with `git add -f <file>`,
# otherwise they are neither committed, stashed nor exported.
set -eu
. "$(dirname "$0")/lib.sh"
cd "$TREE" 2>/dev/null && git rev-parse -q --verify refs/tags/base >/dev/null ||
	die "no base tree in $TREE: run scripts/setup-base.sh (or make setup)"
[ ! -d .git/rebase-apply ] && [ ! -d .git/rebase-merge ] ||
	die "a git am/rebase is in progress in $TREE: finish it or run 'git am --abort' / 'git rebase --abort' first"

stamp=$(date +%Y%m%d-%H%M%S)
# Same committer on every machine: with --committer-date-is-author-date the
# series commits get the same hashes everywhere.
export GIT_COMMITTER_NAME="DAMON series harness" GIT_COMMITTER_EMAIL=damon-series@localhost

# 1. Save uncommitted work.
if [ -n "$(git status --porcelain --untracked-files=normal)" ]; then
	git stash push -q --include-untracked -m "tree.sh $stamp: uncommitted changes"
	say "SAVED uncommitted changes as a stash: git -C $TREE stash show -p stash@{0}"
fi
new_files=$(git ls-files --others --ignored --exclude-standard |
	grep -vE '(^|/)__pycache__/|\.pyc$' | head -10 || true)
[ -z "$new_files" ] || say "NOTE: files not known to git are left as they are (add new files with 'git add -f'):" $new_files

# keep_notes <patch>: append the patch's notes (see above) to the message of
# the commit git am just made from it.
keep_notes() {
	local notes
	notes=$(awk '/^diff --git / { exit } /^---$/ { n++; if (n > 1) print buf; buf = ""; next }
		n { buf = buf $0 "\n" }' "$1" | sed '$d')
	[ -n "$notes" ] || return 0
	GIT_COMMITTER_DATE=$(git log -1 --format=%ad --date=raw) git commit -q --amend \
		--no-verify --cleanup=verbatim -F <(git log -1 --format=%B | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
		echo ---; printf '%s\n' "$notes")
}

# 2. Re-create the branch from base + patches.
old=$(git rev-parse -q --verify refs/heads/series || true)
git checkout -q --detach base
n=0
while read -r p; do
	[ -n "$p" ] || continue
	if ! out=$(git am -q --committer-date-is-author-date "$p" 2>&1); then
		grep -vE '^(hint:|When you have|If you prefer|To restore|Patch failed at)' <<<"$out" >&2
		git am --abort 2>/dev/null || true
		git checkout -q series 2>/dev/null || true
		die "patch ${p##*/} does not apply on top of the previous patches (series branch left unchanged)"
	fi
	keep_notes "$p"
	n=$((n + 1))
done < <(series_patches)

# 3. The cover letter's subject + text become the branch description.
cover=$PATCHES/0000-cover-letter.patch
if [ -f "$cover" ]; then
	tmp=$(mktemp -d)
	subject=$(git mailinfo "$tmp/msg" "$tmp/patch" <"$cover" | sed -n 's/^Subject: //p')
	# the text ends where git's shortlog ("Author Name (N):" + indented lines) starts
	body=$(awk 'prev != "" && /^  / { exit } { if (prev != "") print prev; prev = "" }
		/^[^ ].* \([0-9]+\):$/ { prev = $0; next } { print }' "$tmp/msg")
	rm -rf "$tmp"
	if [ -z "$subject" ] || [[ $subject == *"*** SUBJECT HERE ***"* ]]; then
		say "WARNING: ${cover##*/} has no real subject; branch description not changed"
	else
		git config branch.series.description "$subject${body:+

$body}"
	fi
fi

# 4. Keep the old branch if its commits would otherwise be lost.
fingerprint() { git log --reverse --format='%T %an <%ae> %ad%n%B' --date=raw "base..$1"; }
if [ -n "$old" ] && [ "$(git rev-list --count "base..$old")" -gt 0 ] &&
   [ "$(fingerprint "$old")" != "$(fingerprint HEAD)" ]; then
	b=backup/$stamp
	git rev-parse -q --verify "refs/heads/$b" >/dev/null && b=$b-$$
	git branch "$b" "$old"
	say "SAVED the previous series branch (it differed from $PATCHES) as branch $b"
	say "  (if you meant to test/keep it: git checkout $b, then scripts/export-series.sh)"
fi
git branch -q -f series HEAD
git checkout -q series
say "tree ready: series = base + $n patch(es) from $PATCHES, at $(git rev-parse --short HEAD)"
