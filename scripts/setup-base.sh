#!/bin/bash
# Make $TREE a git repo whose tag "base" is the untouched pinned base.
# Installs the pinned linux-source package (or, if the mirror no longer has
# that version, the current candidate, with a warning), unpacks it once and
# commits it.  Does nothing when the tree already has a matching base.
set -e
. "$(dirname "$0")/lib.sh"

if git -C "$TREE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	have=$(git -C "$TREE" config --get damon.baseversion || true)
	[ "$have" = "$BASE_VERSION" ] && exit 0
	say "WARNING: $TREE has base '$have', pin says '$BASE_VERSION'; keeping it" \
	    "(remove $TREE to re-create)"
	exit 0
fi

installed=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || true)
version=$BASE_VERSION
if [ "$installed" != "$BASE_VERSION" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	if apt-cache madison "$BASE_PKG" | awk '{print $3}' | grep -xF "$BASE_VERSION" >/dev/null; then
		apt-get install -y -qq --no-install-recommends "$BASE_PKG=$BASE_VERSION" >"$LOGS/apt-base.log" 2>&1 ||
			die "apt-get install $BASE_PKG=$BASE_VERSION"
	else
		say "WARNING: $BASE_PKG $BASE_VERSION is no longer on the mirror;" \
		    "using the current candidate instead. Update base/pin."
		apt-get install -y -qq --no-install-recommends "$BASE_PKG" >"$LOGS/apt-base.log" 2>&1 ||
			die "apt-get install $BASE_PKG"
		version=$(dpkg-query -W -f='${Version}' "$BASE_PKG")
	fi
fi
[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing after installing $BASE_PKG"

t=$(date +%s)
say "unpacking $BASE_TARBALL"
rm -rf "$TREE" "$BUILD/$BASE_DIR"
tar -C "$BUILD" -xJf "$BASE_TARBALL"
mv "$BUILD/$BASE_DIR" "$TREE"
say "committing the base ($(since "$t")s so far)"
cd "$TREE"
git init -q -b series
git config user.name "${GIT_AUTHOR_NAME:-DAMON series harness}"
git config user.email "${GIT_AUTHOR_EMAIL:-damon-series@localhost}"
git config damon.baseversion "$version"
# Debian's top-level .gitignore ignores everything ("/*"): add by force.
git add -f -A
# Fixed identity and dates: the base commit has the same hash on every machine
# (for the same package version), so exported patches' index lines match.
GIT_AUTHOR_NAME="DAMON series harness" GIT_AUTHOR_EMAIL=damon-series@localhost \
GIT_COMMITTER_NAME="DAMON series harness" GIT_COMMITTER_EMAIL=damon-series@localhost \
GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z \
	git -c commit.gpgsign=false commit -q --no-verify -m "Base: Debian $BASE_PKG $version"
git tag base
say "base tree ready in $(since "$t")s"
