# Fresh Debian roots for chroot and image tests (sourced after lib.sh by
# scripts/check-install.sh and scripts/check-boot.sh).
#
# A root starts as a copy of the pristine `debootstrap --variant=minbase
# bookworm` result from the archive URI of this machine's own apt sources
# (debian_uri in lib.sh; no mirror is named in the repo), cached as
# $BUILD/cleanroot/pristine-<key>.tar, <key> a hash of the suite, the URI,
# the architecture, the debootstrap arguments and debootstrap's version; it
# is rebuilt when one of them changes or it cannot be unpacked.  Then the
# host's Debian apt sources file(s), the keyrings they name and
# /etc/resolv.conf are copied in.  The .deb files apt downloads in any root
# are kept in $BUILD/cleanroot/apt-archives (apt checks each against the
# fresh package lists).  FRESH=1 drops both caches.

SUITE=bookworm
CR=$BUILD/cleanroot
ROOT_DEBS=$CR/apt-archives
root_uri=$(debian_uri)
root_arch=$(dpkg --print-architecture)
root_db_args=(--variant=minbase --arch="$root_arch" "$SUITE")

root_pristine_path() {
	local key
	key=$(printf '%s\n' "$root_uri" "${root_db_args[@]}" "$(debootstrap --version)" | md5sum | cut -c1-16)
	echo "$CR/pristine-$key.tar"
}

root_prereq() {
	[ "$(id -u)" = 0 ] || die "$0 needs root (debootstrap, chroot, mount)"
	command -v debootstrap >/dev/null || die "debootstrap is not installed: run scripts/setup-deps.sh"
	[ -n "$root_uri" ] || die "no Debian archive URI in this machine's apt sources: cannot debootstrap"
	mkdir -p "$CR"
	if [ "${FRESH:-0}" = 1 ]; then
		rm -rf "$CR"/pristine-*.tar "$ROOT_DEBS"
	fi
	mkdir -p "$ROOT_DEBS"
}

# Mount points under <dir> (from this mount namespace's table), outermost first.
mounts_under() {
	awk -v p="$1/" 'index($5 "/", p) == 1 { print $5 }' /proc/self/mountinfo
}
# Remove a root or build dir of an earlier run: never while anything is
# mounted below it (rm would reach /dev or the repo), never across filesystems.
wipe() {
	local m
	m=$(mounts_under "$1")
	[ -z "$m" ] || die "still mounted under $1 (unmount first):" $m
	rm -rf --one-file-system "$1"
}
# The processes whose root is in <root>.
in_root_pids() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case $r in "$1" | "$1"/*) echo "${p#/proc/}" ;; esac
	done
}
# Kill what runs in <root> and unmount everything below it.
root_release() {
	local p m i
	[ -d "$1" ] || return 0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		p=$(in_root_pids "$1")
		[ -n "$p" ] || break
		# shellcheck disable=SC2086
		kill -KILL $p 2>/dev/null || true
		sleep 0.5
	done
	for m in $(mounts_under "$1" | tac); do
		umount "$m" 2>/dev/null || umount -l "$m" || say "WARNING: cannot unmount $m"
	done
}

# The host's apt source files that hold its Debian entries (the archive URI
# or Debian's keyring), and the keyring files they name.
debian_source_files() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		if grep -qF -e "$root_uri" -e debian-archive-keyring "$f"; then echo "$f"; fi
	done
}
keyrings_named() {
	sed -nE 's/.*(Signed-By:[[:space:]]*|signed-by=)(\/[^][:space:]]+).*/\2/p' "$@" | sort -u
}

# root_fresh <root>: <root> (which must not exist) becomes a copy of the
# pristine root with the host's apt sources, keyrings and resolv.conf, a
# policy-rc.d that keeps package daemons from starting, and /proc, /sys,
# /dev, /dev/pts and the apt archive cache mounted (root_release undoes it).
root_fresh() {
	local root=$1 pristine f files t
	pristine=$(root_pristine_path)
	if [ -s "$pristine" ] && mkdir -p "$root" && tar -C "$root" --numeric-owner -xpf "$pristine"; then
		echo "unpacked the cached pristine root ${pristine##*/}"
	else
		[ ! -e "$pristine" ] || { say "the cached root does not unpack: rebuilding it"; wipe "$root"; }
		rm -f "$CR"/pristine-*.tar
		echo "debootstrap ${root_db_args[*]} $root $root_uri"
		t=$(date +%s)
		if ! debootstrap "${root_db_args[@]}" "$root" "$root_uri" >"$LOGS/debootstrap.log" 2>&1; then
			tail -20 "$LOGS/debootstrap.log"
			die "debootstrap (log: $LOGS/debootstrap.log)"
		fi
		echo "debootstrap took $(since "$t")s; caching it as ${pristine##*/}"
		tar -C "$root" --numeric-owner -cf "$pristine.part" . && mv "$pristine.part" "$pristine"
	fi
	# apt sources: the host's Debian ones, not debootstrap's one-line list
	files=$(debian_source_files)
	[ -n "$files" ] || die "no host apt source file holds the Debian entries"
	rm -f "$root"/etc/apt/sources.list "$root"/etc/apt/sources.list.d/*
	for f in $files $(keyrings_named $files); do
		[ -f "$f" ] || die "$f (named by the host's apt sources) is missing"
		mkdir -p "$root/${f%/*}"
		cp -L "$f" "$root/$f"
		echo "copied the host's $f"
	done
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod +x "$root/usr/sbin/policy-rc.d"
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mount --bind /dev "$root/dev"
	mount --bind /dev/pts "$root/dev/pts"
	mount --bind "$ROOT_DEBS" "$root/var/cache/apt/archives"
}
# root_apt <root> <command...>: run a command (apt-get, as a rule) in <root>
# with a clean environment, noninteractive, the host's proxies passed on.
root_apt() {
	local r=$1
	shift
	chroot "$r" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive \
		${http_proxy:+http_proxy="$http_proxy"} ${https_proxy:+https_proxy="$https_proxy"} "$@"
}
