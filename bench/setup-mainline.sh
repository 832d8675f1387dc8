#!/bin/bash
# usage: bench/setup-mainline.sh
# Unpack Debian's linux-source-7.3 at the version of bench/mainline.pin into
# $BUILD/mainline (a git repo, tag "mainline"), fetched with a private apt
# list of trixie-backports from the archive of this machine's own apt
# sources (the system's sources untouched).  Only measured and read: no
# line of it enters the repo.  Idempotent.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$REPO/bench/mainline.pin"
dest=$BUILD/mainline
if [ "$(git -C "$dest" config --get damon.mainlineversion 2>/dev/null)" = "$MAINLINE_VERSION" ]; then
	exit 0
fi
dir=$BUILD/apt-$MAINLINE_SUITE
private_apt "$MAINLINE_SUITE" "$dir"
(cd "$dir" && apt-get "${apt_opts[@]}" download "$MAINLINE_PKG=$MAINLINE_VERSION" \
	>>"$LOGS/apt-$MAINLINE_SUITE.log" 2>&1) ||
	die "apt-get download $MAINLINE_PKG=$MAINLINE_VERSION"
t=$(date +%s)
rm -rf "$dest" "$dir/x"
dpkg-deb -x "$dir/${MAINLINE_PKG}_${MAINLINE_VERSION//:/%3a}_all.deb" "$dir/x"
say "unpacking $MAINLINE_PKG $MAINLINE_VERSION"
tar -C "$BUILD" -xJf "$dir/x/usr/src/$MAINLINE_PKG.tar.xz"
mv "$BUILD/$MAINLINE_PKG" "$dest"
rm -rf "$dir/x"
cd "$dest"
git init -q -b mainline
git config user.name "DAMON series harness"
git config user.email damon-series@localhost
git add -f -A
git -c commit.gpgsign=false commit -q --no-verify -m "Debian $MAINLINE_PKG $MAINLINE_VERSION"
git tag mainline
git config damon.mainlineversion "$MAINLINE_VERSION"
say "mainline tree ready in $dest in $(since "$t")s"
