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
#   deb      `KFLAVOUR=guest make deb`: the damon-probes package (built and
#            linted) and the kernel packages by bindeb-pkg, here of the guest
#            config (a whole kernel of Debian's cloud-amd64 config, make
#            deb's default, takes 1-2 hours on 2 cores: packaging/README.md)
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
# Cache (never needed, only faster): the pristine debootstrap result and
# apt's downloads, kept by scripts/lib-root.sh (FRESH=1 drops both).  Every
# run starts from a fresh copy, so a previous run's installs never hide a
# missing step.
#
# Ends with each step's wall time and "N passed, N failed" (one per step run);
# on a failure it names the step and the command that failed, lists the steps
# not run and exits non-zero.
set -u
user_jobs=${JOBS:-}
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/lib-root.sh"
root=$CR/root
cbuild=$CR/build
root_prereq
uri=$root_uri db_args=("${root_db_args[@]}")

cleanup() { root_release "$root"; }
trap cleanup EXIT

# Step "root": a fresh copy of the pristine root (lib-root.sh), with the
# repo read-only at /repo and the build dir at /build.
make_root() {
	local t
	t=$(date +%s)
	if [ -e "$root" ] || [ -e "$cbuild" ]; then
		wipe "$root"; wipe "$cbuild"
		echo "removed the previous run's root and build dir in $(since "$t")s"
	fi
	root_fresh "$root"
	mkdir -p "$root/repo" "$root/build" "$cbuild"
	mount --bind "$REPO" "$root/repo"
	mount -o remount,bind,ro "$root/repo"
	mount --bind "$cbuild" "$root/build"
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
	finish 1 prereq "make setup" build deb
prereq='apt-get update && apt-get install -y make'
step prereq "$prereq" in_root "$prereq" || finish 1 "make setup" build deb
# the recipe of `make setup`, one command per line
recipe=$(in_root 'make -s -n setup')
[ -n "$recipe" ] || { failed=$((failed + 1)); echo "CHECK-INSTALL FAILED: \`make -n setup\` printed nothing"; finish 1 "make setup" build deb; }
mapfile -t cmds <<<"$recipe"
for i in "${!cmds[@]}"; do
	c=${cmds[i]}
	name=${c%% *}; name=${name##*/}; name=${name%.sh}; name=${name#setup-}
	step "$name" "$c" in_root "$c" || finish 1 "${cmds[@]:i+1}" build deb
done
step build "TARGETS=mm/damon/ make build" in_root "TARGETS=mm/damon/ make build" || finish 1 deb
step deb "KFLAVOUR=guest make deb" in_root "KFLAVOUR=guest make deb" || finish 1
finish 0
