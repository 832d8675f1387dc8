#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# damo 3.4.x, Debian's package unpacked unchanged by scripts/setup-damo.sh,
# drives data attributes monitoring on this kernel:
#   damo start --ops paddr -s 5ms -a 100ms --probe --probe_filter allow anon \
#              --probe --probe_filter allow memcg /damo-test
#   damo report access --format_region "<start address> <end address> <probe hits>"
# while a workload keeps 64 MiB of anonymous memory in the memcg /damo-test
# hot, and another one 96 MiB of anonymous and 64 MiB of tmpfs memory in the
# root cgroup.  The report must have two probe hit columns, and the anon and
# memcg estimates (size x hits / (aggr/sample)) must be within 4 standard
# deviations of one window's sampling error of the page-level truth of the
# same regions (tools/kpage-scan, read right after the snapshot: other
# processes' anonymous memory counts too).  One snapshot of large mixed
# regions is noisy (a 400 MiB region that is 1/8 anonymous has an sd of
# 30 MiB); the averaged vm-tests check the values tightly.  damo also has
# to accept a hugepage_size probe filter.
# (damo 3.4.1 turns "--ops paddr" into vaddr when "-n MIN MAX" is also given,
# and then fails on any kernel: the test leaves the region limits default.)
set -u
DAMO=${DAMO:-$BUILD/damo/damo}
WL=$BUILD/tools/attr-workload
SCAN=$BUILD/tools/kpage-scan
[ -x "$DAMO" ] || { echo "# FAIL: no damo at $DAMO (scripts/setup-damo.sh installs it)"; exit 1; }
cg=/sys/fs/cgroup/damo-test
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$cg"
pids=()
cleanup() {
	"$DAMO" stop >/dev/null 2>&1
	echo 0 >/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rmdir "$cg" 2>/dev/null
}
trap cleanup EXIT
fail() { echo "# FAIL: $*"; exit 1; }

start_wl() { # <cgroup dir or ""> <args...>: start a workload, wait until ready
	local dir=$1 fifo
	shift
	fifo=$(mktemp -u) && mkfifo "$fifo"
	( [ -z "$dir" ] || echo $BASHPID >"$dir/cgroup.procs"; exec "$WL" "$@" --hot ) >"$fifo" &
	pids+=($!)
	grep -m1 -q '^ready' <"$fifo" || fail "workload $* did not start"
	rm -f "$fifo"
}
start_wl "$cg" --anon 64
start_wl "" --anon 96 --file 64

echo "# damo $("$DAMO" version)"
"$DAMO" start --ops paddr -s 5ms -a 100ms \
	--probe --probe_filter allow anon \
	--probe --probe_filter allow memcg /damo-test ||
	fail "damo start with two probes"
sleep 3
out=$("$DAMO" report access --raw_number \
	--format_region "<start address> <end address> <probe hits>") ||
	fail "damo report access"
echo "$out" | head -5 | sed 's/^/# /'
regions=$(echo "$out" | awk 'NF == 4 && $1 ~ /^[0-9]+$/')
# the truth of the same regions, page by page, right after the snapshot:
# other processes' anonymous memory (damo itself, the shell) counts too
truth=$(awk '{print $1, $2}' <<<"$regions" | "$SCAN" --memcg "$cg") ||
	fail "kpage-scan of the reported regions"
read -r nregions anon memcg bad <<<"$(awk '
	{ n++; sz = $2 - $1
	  if ($3 > 20 || $4 > 20) bad++
	  a += sz * $3 / 20; m += sz * $4 / 20 }
	END { printf "%d %d %d %d\n", n, a / 1048576, m / 1048576, bad }' <<<"$regions")"
# the truth, and the standard deviation of a one-window estimate: a
# region of size S whose fraction p has the attribute adds S^2 p (1-p) / 20
read -r tanon tmemcg sda sdm <<<"$(paste -d' ' <(echo "$regions") <(echo "$truth") | awk '
	{ sz = $2 - $1; pa = $8 / sz; pm = $9 / sz; a += $8; m += $9
	  va += sz * sz * pa * (1 - pa) / 20; vm += sz * sz * pm * (1 - pm) / 20 }
	END { printf "%d %d %d %d\n", a / 1048576, m / 1048576, sqrt(va) / 1048576, sqrt(vm) / 1048576 }')"
echo "# $nregions regions; estimated anon ${anon} MiB (truth ${tanon}, sd ${sda}; the workloads wrote 160)," \
	"memcg /damo-test ${memcg} MiB (truth ${tmemcg}, sd ${sdm}; wrote 64)"
[ "$nregions" -gt 0 ] || fail "no region line with two probe hit columns"
[ "$bad" -eq 0 ] || fail "$bad regions with hits above aggr/sample = 20"
[ "$tanon" -ge 160 ] && [ "$tmemcg" -ge 64 ] ||
	fail "the truth ($tanon MiB anonymous, $tmemcg MiB in the memcg) is less than what was written"
# one window of 20 samples: within 4 standard deviations (+1 MiB of
# rounding) of the truth, false alarms about 1 in 15,000.  Above the truth,
# anon also allows DAMO_MIB (40) for damo's own Python process: its
# anonymous memory is sampled in the snapshot and gone before the page scan
# (estimates 15-27 MiB above the truth here, memcg ones exact).
within() { # <estimate> <truth> <sd> <extra allowed above>
	[ $(( $1 - $2 )) -le $(( 4 * $3 + 1 + $4 )) ] && [ $(( $2 - $1 )) -le $(( 4 * $3 + 1 )) ]
}
within "$anon" "$tanon" "$sda" "${DAMO_MIB:-40}" ||
	fail "anon estimate $anon MiB is not within 4 sd ($sda MiB, +${DAMO_MIB:-40} MiB of damo) of the truth, $tanon MiB"
within "$memcg" "$tmemcg" "$sdm" 0 ||
	fail "memcg estimate $memcg MiB is not within 4 sd ($sdm MiB) of the truth, $tmemcg MiB"
"$DAMO" stop || fail "damo stop"

# damo must see and accept the beyond-mainline hugepage_size filter
"$DAMO" start --ops paddr --probe --probe_filter allow hugepage_size 2M 2M ||
	fail "damo start --probe_filter allow hugepage_size 2M 2M"
t=$(cat /sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/monitoring_attrs/probes/0/filters/0/type)
[ "$t" = hugepage_size ] || fail "probe filter type is '$t', not hugepage_size"
"$DAMO" stop
echo "# PASS"
