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
if [ -x "$dest/damo" ] && "$dest/damo" version 2>/dev/null | grep -q "^$DAMO_VERSION\."; then
	exit 0
fi
# The Debian archive URI of this machine's own apt sources (deb822 *.sources
# or one-line sources.list): the first "deb" entry whose suite is a plain
# release (no -security/-updates).  No mirror is named here.
debian_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		     { t = u = s = ""
		       for (i = 1; i <= NF; i++) {
			       if ($i ~ /^Types:/) t = $i
			       if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
			       if ($i ~ /^Suites:/) s = $i
		       }
		       if (t ~ /[ \t]deb([ \t]|$)/ && s ~ /[ \t][a-z]+([ \t]|$)/ && u != "") { print u; exit } }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++
			if ($(i + 1) ~ /^[a-z]+$/) { print $i; exit } }' "$f"
	done
}
uri=$(debian_uri | head -1)
[ -n "$uri" ] || die "no Debian archive URI in /etc/apt/sources.list{,.d/*}: cannot fetch damo"
apt_dir=$BUILD/apt-sid
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri sid main" \
	>"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
	  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives"
	  -o "APT::Sandbox::User=root")
say "fetching the damo package list of Debian sid"
apt-get "${apt_opts[@]}" update -qq >"$LOGS/apt-damo.log" 2>&1 ||
	{ tail -5 "$LOGS/apt-damo.log"; die "apt-get update (sid, for damo)"; }
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
