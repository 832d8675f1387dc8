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
uri=$(debian_uri)
[ -n "$uri" ] || die "no Debian archive URI in /etc/apt/sources.list{,.d/*}: cannot fetch damo"
apt_dir=$BUILD/apt-sid
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri sid main" \
	>"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
	  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives"
	  -o "APT::Sandbox::User=root")
say "fetching the damo package list of Debian sid"
# A mirror may lag sid by weeks: its signed InRelease is then past its
# Valid-Until and apt refuses it.  The signature is still checked and only the
# pinned damo $DAMO_VERSION.x is taken from it, so accept it, saying so.
if ! apt-get "${apt_opts[@]}" update -qq >"$LOGS/apt-damo.log" 2>&1; then
	grep -q 'is expired' "$LOGS/apt-damo.log" ||
		{ tail -5 "$LOGS/apt-damo.log" >&2; die "apt-get update (sid, for damo; log: $LOGS/apt-damo.log)"; }
	say "WARNING: the mirror's sid Release file is expired (a lagging mirror); using it anyway"
	apt_opts+=(-o Acquire::Check-Valid-Until=false)
	apt-get "${apt_opts[@]}" update -qq >"$LOGS/apt-damo.log" 2>&1 ||
		{ tail -5 "$LOGS/apt-damo.log" >&2; die "apt-get update (sid, for damo; log: $LOGS/apt-damo.log)"; }
fi
version=$(apt-cache "${apt_opts[@]}" madison damo | awk '{print $3}' |
	grep "^$DAMO_VERSION\." | sort -V | tail -1)
[ -n "$version" ] || die "no damo $DAMO_VERSION.x in Debian sid"
rm -rf "$dest" && mkdir -p "$dest"
(cd "$apt_dir" && apt-get "${apt_opts[@]}" download "damo=$version" >>"$LOGS/apt-damo.log" 2>&1) ||
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
