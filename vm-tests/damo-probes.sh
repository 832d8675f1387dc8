#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# damo 3.4.x, Debian's package unpacked unchanged by scripts/setup-damo.sh,
# drives data attributes monitoring on this kernel:
#   damo start --ops paddr -s 5ms -a 100ms --probe --probe_filter allow anon \
#              --probe --probe_filter allow memcg /damo-test
#   damo report access --format_region "<start address> <end address> <probe hits>"
# while a workload keeps 64 MiB of anonymous memory in the memcg /damo-test
# hot, and another one 96 MiB of anonymous and 64 MiB of tmpfs memory in the
# root cgroup.  The report must have two probe hit columns, the anon probe's
# estimate (size x hits / (aggr/sample)) must be within 25% of the 160 MiB of
# anonymous memory the workloads wrote (one snapshot, so a wider tolerance
# than the averaged vm-tests), and the memcg probe must see the memcg's
# memory.  damo also has to accept a hugepage_size probe filter.
# (damo 3.4.1 turns "--ops paddr" into vaddr when "-n MIN MAX" is also given,
# and then fails on any kernel: the test leaves the region limits default.)
set -u
DAMO=${DAMO:-$BUILD/damo/damo}
WL=$BUILD/tools/attr-workload
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
read -r nregions anon memcg bad <<<"$(echo "$out" | awk '
	NF == 4 && $1 ~ /^[0-9]+$/ { n++; sz = $2 - $1
		if ($3 > 20 || $4 > 20) bad++
		a += sz * $3 / 20; m += sz * $4 / 20 }
	END { printf "%d %d %d %d\n", n, a / 1048576, m / 1048576, bad }')"
echo "# $nregions regions; estimated anon ${anon} MiB (wrote 160), memcg /damo-test ${memcg} MiB (wrote 64)"
[ "$nregions" -gt 0 ] || fail "no region line with two probe hit columns"
[ "$bad" -eq 0 ] || fail "$bad regions with hits above aggr/sample = 20"
[ "$anon" -ge 120 ] && [ "$anon" -le 200 ] || fail "anon estimate $anon MiB is not within 25% of 160 MiB"
[ "$memcg" -ge 32 ] && [ "$memcg" -le 96 ] || fail "memcg estimate $memcg MiB is not within 50% of 64 MiB"
"$DAMO" stop || fail "damo stop"

# damo must see and accept the beyond-mainline hugepage_size filter
"$DAMO" start --ops paddr --probe --probe_filter allow hugepage_size 2M 2M ||
	fail "damo start --probe_filter allow hugepage_size 2M 2M"
t=$(cat /sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/monitoring_attrs/probes/0/filters/0/type)
[ "$t" = hugepage_size ] || fail "probe filter type is '$t', not hugepage_size"
"$DAMO" stop
echo "# PASS"
