# shellcheck shell=bash
# Common settings for the harness scripts; sourced, never run.
#
# Layout under $BUILD (git-ignored, default <repo>/build):
#   linux/        the kernel tree: a git repo, tag "base" = untouched base,
#                 branch "series" = base + patches/*.patch
#   x86/          O= build dir of the x86_64 guest kernel
#   x86-debug/    O= build dir of the debug guest kernel
#   kunit/        kunit.py --build_dir (UML)
#   kst-<kind>/   installed DAMON kselftests (kst-build-<kind>/: objects)
#   tools/        tools/*.c built for the guest (ticker, workloads, tsc-khz)
#   damo/         damo unpacked from Debian's package (setup-damo.sh)
#   vm/           per-run scratch dirs of scripts/run-vm.sh
#   logs/         logs of the last run of each step
#   cleanroot/    scripts/check-install.sh: the cached pristine Debian root,
#                 apt's .deb cache, and the root and /build of the last run

set -o pipefail -o errtrace
# Loud failures: a command that fails under `set -e` in any script that sources
# this file names the script, the line and the command before the script exits
# (a failed pipe too, under pipefail); the scripts' own exits go through die(),
# which says why.
on_err() {
	local rc=$? cmd=$BASH_COMMAND
	# only where the failure ends the script (set -e): a checked failure
	# after "set +e" is the script's own business
	[[ $- == *e* ]] || return 0
	printf 'FAILED: %s line %s: `%s` exited with %s\n' \
		"${BASH_SOURCE[1]##*/}" "${BASH_LINENO[0]}" "$cmd" "$rc" >&2
}
trap on_err ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
mkdir -p "$BUILD" && BUILD=$(cd "$BUILD" && pwd)	# absolute: the VM sees host paths
TREE=$BUILD/linux
LOGS=$BUILD/logs
JOBS=${JOBS:-$(nproc)}
# Debian's own Python, for which the python3-* packages (python3-matplotlib:
# the demo's picture and its tests) are installed; a python3 that comes
# first in PATH (pyenv, a virtualenv) does not see them.
DEB_PYTHON=${DEB_PYTHON:-/usr/bin/python3}
# The series: *.patch in name order (0000-cover-letter.patch is the cover).
# Override to test a copy without touching the repo's patches/.
PATCHES=${PATCHES:-$REPO/patches}
PATCHES=$(cd "$PATCHES" 2>/dev/null && pwd || echo "$PATCHES")
# shellcheck source=../base/pin
. "$REPO/base/pin"
mkdir -p "$BUILD" "$LOGS"

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

# ccache when installed (CCACHE=0 disables): never required, never assumed warm.
USE_CCACHE=
if [ "${CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
	USE_CCACHE=1
	export CCACHE_BASEDIR=$BUILD
fi
# Prints the make argument selecting ccache (one word: use as "$(make_cc)"),
# for the compiler of $CROSS_COMPILE if set.
make_cc() {
	if [ -n "$USE_CCACHE" ]; then echo "CC=ccache ${CROSS_COMPILE:-}gcc"
	else echo "CC=${CROSS_COMPILE:-}gcc"; fi
}

# Seconds elapsed since $1 (a `date +%s` value).
# Verdict of a "python3 -m unittest -v" run whose output is in <log> and
# whose exit status was <rc>: prints "N passed, N failed"; dies, naming
# <what> and showing the failed tests, unless every test ran and passed (a
# skip fails too).
unittest_verdict() { # <log> <rc> <what>
	local log=$1 rc=$2 total bad
	total=$(sed -nE 's/^Ran ([0-9]+) tests? in .*/\1/p' "$log")
	bad=$(grep -cE ' \.\.\. (.*\) )?(FAIL|ERROR|skipped)' "$log" || true)
	if [ "$rc" -ne 0 ] || [ -z "$total" ] || [ "$total" -eq 0 ] || [ "$bad" -ne 0 ]; then
		grep -E ' \.\.\. (.*\) )?(FAIL|ERROR|skipped)|^(FAIL|ERROR):|Error: ' "$log" >&2 ||
			tail -20 "$log" >&2
		echo "$(( ${total:-0} - bad )) passed, $(( bad > 0 ? bad : 1 )) failed"
		die "$3: rc=$rc (log: $log)"
	fi
	echo "$total passed, 0 failed"
}
since() { echo $(( $(date +%s) - $1 )); }

# The patch files of the series, in order, without the cover letter.
series_patches() {
	local p
	for p in "$PATCHES"/*.patch; do
		[ -e "$p" ] || continue
		case ${p##*/} in 0000-cover-letter.patch) continue ;; esac
		echo "$p"
	done
}

# make for the x86_64 guest kernel: kmake <build dir> [make args...]
kmake() {
	local out=$1; shift
	make -C "$TREE" O="$out" ARCH=x86_64 "$(make_cc)" "$@"
}

# damon_kselftests <tree> <name>
# Install the DAMON kselftests of <tree> in $BUILD/kst-<name> (built in
# $BUILD/kst-build-<name>, log $LOGS/kst-build-<name>.log), afresh, for
# guest/run-tests.sh (KST=$BUILD/kst-<name>).
damon_kselftests() {
	local kst=$BUILD/kst-$2 log=$LOGS/kst-build-$2.log
	rm -rf "$kst"
	make -C "$1/tools/testing/selftests" TARGETS=damon O="$BUILD/kst-build-$2" \
		install INSTALL_PATH="$kst" >"$log" 2>&1 ||
		{ tail -20 "$log" >&2; die "building the DAMON kselftests of $1 (log: $log)"; }
}

# kconfig_build <tree> <out> <arch> <fragment...>
# Configure the kernel build dir <out> of <tree> for <arch> as allnoconfig +
# the fragments (concatenated), the one way every script configures a
# kernel.  Re-configures only when the fragments or the tree's Kconfig files
# changed (checking out another commit can add or remove symbols) or there is
# no .config.  Then every symbol's last line in the fragments (a later
# fragment overrides an earlier one) must hold in .config: "CONFIG_X=v"
# present, "# CONFIG_X is not set" not set (Kconfig drops symbols with unmet
# dependencies silently).  LENIENT=1 tolerates symbols
# that the checked-out Kconfig does not define yet (the series' early
# patches).  Log: <out>/kconfig.log.
kconfig_build() {
	local tree=$1 out=$2 arch=$3 frag key l sym missing=
	shift 3
	mkdir -p "$out"
	frag=$out/harness-fragment.config
	cat "$@" >"$frag"
	key=$( { echo "$arch"; cat "$frag"; git -C "$tree" ls-files -s -- ':(glob)**/Kconfig*'
		git -C "$tree" diff HEAD -- ':(glob)**/Kconfig*'; } | md5sum)
	if [ ! -f "$out/.config" ] || [ "$key" != "$(cat "$out/harness-config.key" 2>/dev/null)" ]; then
		say "configuring $out (allnoconfig + ${*##*/}, ARCH=$arch)"
		rm -f "$out/harness-config.key"
		make -C "$tree" O="$out" ARCH="$arch" "$(make_cc)" KCONFIG_ALLCONFIG="$frag" \
			allnoconfig >"$out/kconfig.log" 2>&1 ||
			{ tail -20 "$out/kconfig.log" >&2; die "configuring $out (log: $out/kconfig.log)"; }
		echo "$key" >"$out/harness-config.key"
	fi
	while read -r l; do
		case $l in
		CONFIG_*=*) grep -qxF "$l" "$out/.config" && continue; sym=${l%%=*} ;;
		"# CONFIG_"*" is not set") sym=${l#\# }; sym=${sym%% *}
			grep -q "^$sym=" "$out/.config" || continue ;;
		*) continue ;;
		esac
		if [ -n "${LENIENT:-}" ] &&
		   ! git -C "$tree" grep -qE "^\s*(menu)?config ${sym#CONFIG_}\s*\$" -- ':(glob)**/Kconfig*'; then
			say "NOTE: $l: not in this checkout's Kconfig yet"
			continue
		fi
		missing+=" $l"
	done < <(awk '/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s) }
		      /^# CONFIG_[A-Za-z0-9_]+ is not set/ { s = $2 }
		      s != "" { last[s] = $0; if (!(s in seen)) { seen[s] = 1; order[++n] = s } s = "" }
		      END { for (i = 1; i <= n; i++) print last[order[i]] }' "$frag")
	[ -z "$missing" ] || { rm -f "$out/harness-config.key"
		die "config lines that do not hold in $out/.config (unmet dependencies?):$missing"; }
}

# The Debian archive URI of this machine's own apt sources (deb822 *.sources
# or one-line sources.list): the first enabled "deb" entry whose suite is a
# plain release (no -security/-updates) and that names no keyring other than
# Debian's (a third-party repository's entry names its own).  No mirror is
# named in the repo: setup-damo.sh and check-install.sh use this.  Prints
# one line, or nothing when there is no such entry (no `| head -1` needed:
# under pipefail a second line written after head exits could kill the caller).
# private_apt <suite> <dir>: an apt configuration in <dir> whose only source
# is <suite> of the Debian archive this machine's apt sources name
# (debian_uri), for downloads that must not touch the system's sources
# (damo from sid, mainline's source from trixie-backports).  Sets the array
# apt_opts and runs apt-get update with it (log: $LOGS/apt-<suite>.log).  A
# lagging mirror's expired Release file is accepted with a warning: its
# signature is still checked, and callers take pinned versions only.
private_apt() {
	local suite=$1 dir=$2 uri log=$LOGS/apt-$1.log
	uri=$(debian_uri)
	[ -n "$uri" ] || die "no Debian archive URI in /etc/apt/sources.list{,.d/*}: cannot fetch from $suite"
	mkdir -p "$dir/lists/partial" "$dir/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
		>"$dir/sources.list"
	apt_opts=(-o "Dir::Etc::sourcelist=$dir/sources.list" -o "Dir::Etc::sourceparts=-"
		  -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache::Archives=$dir/archives"
		  -o "APT::Sandbox::User=root")
	say "fetching the package list of Debian $suite"
	if ! apt-get "${apt_opts[@]}" update -qq >"$log" 2>&1; then
		grep -q 'is expired' "$log" ||
			{ tail -5 "$log" >&2; die "apt-get update ($suite; log: $log)"; }
		say "WARNING: the mirror's $suite Release file is expired (a lagging mirror); using it anyway"
		apt_opts+=(-o Acquire::Check-Valid-Until=false)
		apt-get "${apt_opts[@]}" update -qq >"$log" 2>&1 ||
			{ tail -5 "$log" >&2; die "apt-get update ($suite; log: $log)"; }
	fi
}

debian_uri() {
	local f u
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		u=$(awk 'BEGIN { RS = ""; FS = "\n" }
		     { t = u = s = k = e = ""
		       for (i = 1; i <= NF; i++) {
			       if ($i ~ /^Types:/) t = $i
			       if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
			       if ($i ~ /^Suites:/) s = $i
			       if ($i ~ /^Signed-By:/) k = $i
			       if ($i ~ /^Enabled:/) e = $i
		       }
		       if (e ~ /:[ \t]*no/ || (k != "" && k !~ /debian-archive-keyring/)) next
		       if (t ~ /[ \t]deb([ \t]|$)/ && s ~ /[ \t][a-z]+([ \t]|$)/ && u != "") { print u; exit } }' "$f")
		[ -z "$u" ] || { echo "$u"; return 0; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		u=$(awk '$1 == "deb" { i = 2; o = ""
			if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) { o = o " " $i; i++ }; o = o " " $i; i++ }
			if (o ~ /signed-by=/ && o !~ /signed-by=[^ \]]*debian-archive-keyring/) next
			if ($(i + 1) ~ /^[a-z]+$/) { print $i; exit } }' "$f")
		[ -z "$u" ] || { echo "$u"; return 0; }
	done
}
