#!/bin/bash
# usage: scripts/check-install.sh                  (make check-install; root)
# Proves the README's install path from nothing: a machine where packages were
# installed by hand (CI's, a developer's) never notices a missing install step.
#
# Steps, each printed with what it runs, each counted once:
#   root     a fresh minimal Debian 12 root in $BUILD/cleanroot/root:
#            `debootstrap --variant=minbase bookworm` from the archive URI of
#            this machine's own apt sources (debian_uri in lib.sh; no mirror is
#            named in the repo), then the host's Debian apt sources file(s) and
#            the keyrings they name, and /etc/resolv.conf, copied in
#   prereq   what the README says a minimal image needs first:
#            `apt-get update && apt-get install -y make`
#   deps, damo, base, tree
#            the recipe of `make setup` (read with `make -n setup`, so a step
#            added to the Makefile is checked too), one line per step, run
#            from /repo as a newcomer's root shell would
#   build    `TARGETS=mm/damon/ make build`: configure the guest kernel and
#            build mm/damon/ (not the whole bzImage: that is make check's job)
# The root is a chroot with /proc, /sys, /dev, /dev/pts mounted and a
# policy-rc.d that keeps package daemons from starting; the repo's CURRENT
# working tree is bind-mounted READ-ONLY at /repo (nothing in the repo can be
# written: the steps run with BUILD=/build), $BUILD/cleanroot/build is /build.
# The steps run with a clean environment (env -i: HOME, PATH, TERM, BUILD,
# JOBS if set, proxies if set) and git's safe.directory=/repo (only there: the
# checkout belongs to whoever owns it on the host).  Everything is unmounted
# (and the processes left in the root are killed) on exit, failed, interrupted
# or not; after a failure (or with KEEP=1) the root and /build stay for
# inspection until the next run, which removes them first.  Step logs:
# $LOGS/check-install-<step>.log; the steps' own: $BUILD/cleanroot/build/logs/.
#
# Cache (never needed, only faster): the pristine debootstrap result is kept
# as $BUILD/cleanroot/pristine-<key>.tar, <key> a hash of the suite, the
# URI, the architecture, the debootstrap arguments and debootstrap's version;
# it is rebuilt when one of them changes or it cannot be unpacked.  Every run
# starts from a fresh copy of it, so a previous run's installs never hide a
# missing step.  The .deb files apt downloads are kept in
# $BUILD/cleanroot/apt-archives (apt checks each against the fresh package
# lists; installing still takes the same steps).  FRESH=1 drops both caches.
#
# Ends with each step's wall time and "N passed, N failed" (one per step run);
# on a failure it names the step and the command that failed, lists the steps
# not run and exits non-zero.
set -u
user_jobs=${JOBS:-}
. "$(dirname "$0")/lib.sh"

SUITE=bookworm
CR=$BUILD/cleanroot
root=$CR/root
cbuild=$CR/build
debs=$CR/apt-archives
[ "$(id -u)" = 0 ] || die "check-install.sh needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || die "debootstrap is not installed: run scripts/setup-deps.sh"
uri=$(debian_uri)
[ -n "$uri" ] || die "no Debian archive URI in this machine's apt sources: cannot debootstrap"
arch=$(dpkg --print-architecture)
db_args=(--variant=minbase --arch="$arch" "$SUITE")
key=$(printf '%s\n' "$uri" "${db_args[@]}" "$(debootstrap --version)" | md5sum | cut -c1-16)
pristine=$CR/pristine-$key.tar
mkdir -p "$CR"
if [ "${FRESH:-0}" = 1 ]; then
	rm -rf "$CR"/pristine-*.tar "$debs"
fi
mkdir -p "$debs"

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
# The processes whose root is in the root (all started by this run).
in_root_pids() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case $r in "$root" | "$root"/*) echo "${p#/proc/}" ;; esac
	done
}
cleanup() {
	local p m i
	[ -d "$root" ] || return 0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		p=$(in_root_pids)
		[ -n "$p" ] || break
		# shellcheck disable=SC2086
		kill -KILL $p 2>/dev/null || true
		sleep 0.5
	done
	for m in $(mounts_under "$root" | tac); do
		umount "$m" 2>/dev/null || umount -l "$m" || say "WARNING: cannot unmount $m"
	done
}
trap cleanup EXIT

# The host's apt source files that hold its Debian entries (the archive URI
# or Debian's keyring), and the keyring files they name.
debian_source_files() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		if grep -qF -e "$uri" -e debian-archive-keyring "$f"; then echo "$f"; fi
	done
}
keyrings_named() {
	sed -nE 's/.*(Signed-By:[[:space:]]*|signed-by=)(\/[^][:space:]]+).*/\2/p' "$@" | sort -u
}

# Step "root": a fresh copy of the pristine root, set up and mounted.
make_root() {
	local f files t
	t=$(date +%s)
	if [ -e "$root" ] || [ -e "$cbuild" ]; then
		wipe "$root"; wipe "$cbuild"
		echo "removed the previous run's root and build dir in $(since "$t")s"
	fi
	if [ -s "$pristine" ] && mkdir -p "$root" && tar -C "$root" --numeric-owner -xpf "$pristine"; then
		echo "unpacked the cached pristine root ${pristine##*/}"
	else
		[ ! -e "$pristine" ] || { say "the cached root does not unpack: rebuilding it"; wipe "$root"; }
		rm -f "$CR"/pristine-*.tar
		echo "debootstrap ${db_args[*]} $root $uri"
		t=$(date +%s)
		if ! debootstrap "${db_args[@]}" "$root" "$uri" >"$LOGS/check-install-debootstrap.log" 2>&1; then
			tail -20 "$LOGS/check-install-debootstrap.log"
			die "debootstrap (log: $LOGS/check-install-debootstrap.log)"
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
	# no daemon of an installed package starts inside the chroot
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod +x "$root/usr/sbin/policy-rc.d"
	mkdir -p "$root/repo" "$root/build" "$cbuild"
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mount --bind /dev "$root/dev"
	mount --bind /dev/pts "$root/dev/pts"
	mount --bind "$REPO" "$root/repo"
	mount -o remount,bind,ro "$root/repo"
	mount --bind "$cbuild" "$root/build"
	mount --bind "$debs" "$root/var/cache/apt/archives"
	findmnt -n -o OPTIONS --mountpoint "$root/repo" | grep -E '(^|,)ro(,|$)' >/dev/null ||
		die "$root/repo is not mounted read-only"
	echo "/repo = $REPO (read-only), /build = $cbuild"
}

# Run a command line in the root as a newcomer's root shell would, in /repo.
# safe.directory only for /repo: it is the host's checkout, owned by whoever
# owns it there.
in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		BUILD=/build ${user_jobs:+JOBS="$user_jobs"} \
		${http_proxy:+http_proxy="$http_proxy"} ${https_proxy:+https_proxy="$https_proxy"} \
		GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0=/repo \
		/bin/bash -c "cd /repo && $1"
}

passed=0 failed=0 times=()
t0=$(date +%s)
finish() { # <rc> [steps not run...]
	local rc=$1 t; shift
	echo
	echo "Step wall times:"
	printf '  %s\n' "${times[@]}"
	printf '  %-8s %5ss\n' total "$(since "$t0")"
	[ $# -eq 0 ] || echo "not run: $*"
	if [ "$rc" = 0 ]; then
		echo "CHECK-INSTALL PASSED"
		if [ "${KEEP:-0}" != 1 ]; then	# nothing to inspect: free the space
			t=$(date +%s)
			cleanup
			wipe "$root"; wipe "$cbuild"
			echo "removed the root and build dir in $(since "$t")s (KEEP=1 keeps them)"
		fi
	fi
	echo "$passed passed, $failed failed"
	exit "$rc"
}
# step <name> <what it runs (shown)> <command...>
step() {
	local name=$1 what=$2 t rc log=$LOGS/check-install-$1.log msg
	shift 2
	t=$(date +%s)
	cur=$name cur_t=$t
	echo
	say "==== $name: $what"
	rm -f "$log.rc" "$log.pid"
	# In the background, so that INT/TERM are handled at once (`wait` returns);
	# the ERR trap is off around the step (its failure is reported below) and
	# on inside it (names the command that failed).
	{ trap - ERR; echo "$BASHPID" >"$log.pid"
	  (trap on_err ERR; set -e; "$@"); echo $? >"$log.rc"; } 2>&1 | tee "$log" &
	wait $!
	rc=$(cat "$log.rc" 2>/dev/null || echo 1)
	rm -f "$log.rc" "$log.pid"
	cur=
	times+=("$(printf '%-8s %5ss  %s' "$name" "$(since "$t")" "$([ "$rc" = 0 ] && echo ok || echo "FAILED (rc $rc)")")")
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		return 0
	fi
	failed=$((failed + 1))
	msg=$(grep -E '^FAILED: ' "$log" | tail -1 | sed 's/^FAILED: //' || true)
	echo
	echo "CHECK-INSTALL FAILED at step '$name' ($what): ${msg:-exited with $rc} (log: $log)"
	return 1
}
# A pid and all its descendants.
tree_pids() {
	local c
	echo "$1"
	for c in $(ps -o pid= --ppid "$1"); do tree_pids "$c"; done
}
# INT/TERM: stop the running step, count it as failed, unmount (EXIT trap).
interrupted() {
	local p
	trap - INT TERM
	if [ -n "${cur:-}" ]; then
		p=$(cat "$LOGS/check-install-$cur.log.pid" 2>/dev/null || true)
		# shellcheck disable=SC2046
		[ -z "$p" ] || kill -TERM $(tree_pids "$p") 2>/dev/null || true
		rm -f "$LOGS/check-install-$cur.log.pid"
		times+=("$(printf '%-8s %5ss  %s' "$cur" "$(since "$cur_t")" "INTERRUPTED")")
		failed=$((failed + 1))
	fi
	echo
	echo "CHECK-INSTALL INTERRUPTED${cur:+ during step '$cur'}"
	finish 130
}
cur=
trap interrupted INT TERM

step root "fresh minimal Debian $SUITE root (debootstrap ${db_args[*]}, $uri)" make_root ||
	finish 1 prereq "make setup" build
prereq='apt-get update && apt-get install -y make'
step prereq "$prereq" in_root "$prereq" || finish 1 "make setup" build
# the recipe of `make setup`, one command per line
recipe=$(in_root 'make -s -n setup')
[ -n "$recipe" ] || { failed=$((failed + 1)); echo "CHECK-INSTALL FAILED: \`make -n setup\` printed nothing"; finish 1 "make setup" build; }
mapfile -t cmds <<<"$recipe"
for i in "${!cmds[@]}"; do
	c=${cmds[i]}
	name=${c%% *}; name=${name##*/}; name=${name%.sh}; name=${name#setup-}
	step "$name" "$c" in_root "$c" || finish 1 "${cmds[@]:i+1}" build
done
step build "TARGETS=mm/damon/ make build" in_root "TARGETS=mm/damon/ make build" || finish 1
finish 0
