#!/bin/bash
# Install the Debian packages the harness needs (idempotent; root only).
# The pinned base package is installed by setup-base.sh, damo by setup-damo.sh.
set -e
. "$(dirname "$0")/lib.sh"
# python3-matplotlib: demo/plot.py draws make run's picture (Agg backend, no
# display; for Debian's /usr/bin/python3, lib.sh's DEB_PYTHON).
# debhelper, lintian: the damon-probes package (scripts/build-deb.sh tools).
# gcc-aarch64-linux-gnu, gcc-m68k-linux-gnu: the cross builds of mm/damon/
# (scripts/check-configs.sh); i386 is built by the host gcc with -m32.
PKGS="build-essential flex bison bc libelf-dev libssl-dev cpio kmod python3
      rsync xz-utils perl procps qemu-system-x86 sparse git file debootstrap
      ca-certificates prometheus prometheus-node-exporter python3-matplotlib
      debhelper lintian gcc-aarch64-linux-gnu gcc-m68k-linux-gnu"
# A package counts as present only when dpkg says "install ok installed";
# dpkg-query exits non-zero (and prints nothing) for one it never heard of.
missing=
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[ "${st:0:2}" = ii ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >"$LOGS/apt.log" 2>&1 ||
		{ tail -20 "$LOGS/apt.log" >&2; die "apt-get update (log: $LOGS/apt.log)"; }
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >>"$LOGS/apt.log" 2>&1 ||
		{ tail -20 "$LOGS/apt.log" >&2; die "apt-get install$missing (log: $LOGS/apt.log)"; }
fi
exit 0
