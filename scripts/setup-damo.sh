#!/bin/bash
# Unpack Debian's damo 3.4.x (the user-space DAMON client, arch:all, from
# Debian's sid suite, from the archive this machine's apt sources name)
# into $BUILD/damo, so that the VM tests and the demo can
# run it unchanged: $BUILD/damo/damo is a wrapper that runs it from there.
# The system's apt sources are not touched: a private list of the sid suite
# is used for the download only.  Idempotent.
set -e
. "$(dirname "$0")/lib.sh"
DAMO_VERSION=${DAMO_VERSION:-3.4}
dest=$BUILD/damo
if [ -x "$dest/damo" ] && "$dest/damo" version 2>/dev/null | grep "^$DAMO_VERSION\." >/dev/null; then
	exit 0
fi
apt_dir=$BUILD/apt-sid
private_apt sid "$apt_dir"
version=$(apt-cache "${apt_opts[@]}" madison damo | awk '{print $3}' |
	grep "^$DAMO_VERSION\." | sort -V | tail -1)
[ -n "$version" ] || die "no damo $DAMO_VERSION.x in Debian sid"
rm -rf "$dest" && mkdir -p "$dest"
(cd "$apt_dir" && apt-get "${apt_opts[@]}" download "damo=$version" >>"$LOGS/apt-sid.log" 2>&1) ||
	die "apt-get download damo=$version"
dpkg-deb -x "$apt_dir/damo_${version//:/%3a}_all.deb" "$dest/root"
cat >"$dest/damo" <<WRAP
#!/bin/sh
# damo $version, unpacked from Debian's package by scripts/setup-damo.sh
export PYTHONPATH=$dest/root/usr/lib/python3/dist-packages\${PYTHONPATH:+:\$PYTHONPATH}
exec python3 $dest/root/usr/bin/damo "\$@"
WRAP
chmod +x "$dest/damo"
say "damo $("$dest/damo" version) in $dest"
