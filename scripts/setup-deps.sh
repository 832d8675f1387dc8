#!/bin/bash
# Install the Debian packages the harness needs (idempotent; root only).
# The pinned base package is installed by setup-base.sh.
set -e
. "$(dirname "$0")/lib.sh"
PKGS="build-essential flex bison bc libelf-dev libssl-dev cpio kmod python3
      rsync xz-utils perl procps qemu-system-x86 sparse git file"
missing=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PKGS 2>/dev/null |
	awk '$2 != "installed" {print $1}')
# dpkg-query prints nothing for packages it has never heard of
for p in $PKGS; do dpkg-query -W "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$(echo $missing)" ]; then
	say "installing:" $missing
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >"$LOGS/apt.log" 2>&1 ||
		{ tail -20 "$LOGS/apt.log"; die "apt-get install"; }
fi
exit 0
