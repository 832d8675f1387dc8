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
# and then fails on any kernel: -n takes one number.)  Every 'damo start'
# caps the regions at MAXR (-m 100): each damo report reads every file of
# every tried region, and with damo's default of 1000 (507 regions in use)
# one report took 112 s in a TCG guest.
# Before that, with no kdamond running and a fresh $HOME (damo caches its
# feature answers in ~/.damo.sysinfo, keyed only by the damo and kernel
# versions), "damo features all" must list as Supported every damo feature
# whose name matches probe|attrs (taken from damo's own features_list, so
# that a feature a newer damo adds fails here rather than being missed),
# plus trace/damon_region_aggregated and sysfs/allow_filter.  Then damo
# drives the preps and the DAMOS probe_hits_wsum filter:
#   damo start ... --probe --probe_prep set_pgidle \
#              --probe_filter allow pgidle_unset --probe_weight 1
#   damo start ... --damos_action stat --damos_filter allow probe_hits_wsum 1 100
# and the files it wrote must read back what was asked.  Every failed
# check is reported and the test goes on; it fails at the end if any did.
set -u
DAMO=${DAMO:-$BUILD/damo/damo}
WL=$BUILD/tools/attr-workload
SCAN=$BUILD/tools/kpage-scan
MAXR=${MAXR:-100}
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
errs=0
err() { echo "# FAIL: $*"; errs=$((errs + 1)); }
CTX=/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0
readf() { cat "$1" 2>/dev/null || echo "<$1 unreadable>"; }

# --- damo features all, on a fresh cache, before any kdamond runs ---------
for st in /sys/kernel/mm/damon/admin/kdamonds/*/state; do
	[ -e "$st" ] || continue
	[ "$(cat "$st")" = off ] || fail "a kdamond is running ($st): damo features would not look"
done
DAMO_PY=${DAMO_PY:-$(dirname "$DAMO")/root/usr/lib/python3/dist-packages/damo}
# sysfs/ops_attrs matches 'attrs' but is a damon/next-only interface that
# damo marks as planned not to be upstreamed (replaced by attrs_monitoring)
want=$(python3 -c '
import re, sys
sys.path.insert(0, sys.argv[1])
import _damon_features
names = [f.name for f in _damon_features.features_list]
want = [n for n in names if re.search("probe|attrs", n) and n != "sysfs/ops_attrs"]
want += ["trace/damon_region_aggregated", "sysfs/allow_filter"]
for n in want:
    if n not in names:
        sys.exit("damo knows no feature " + n)
print("\n".join(want))' "$DAMO_PY") || fail "damo's features_list: $want"
feats=$(HOME=$(mktemp -d) "$DAMO" features all) || fail "damo features all: $feats"
while IFS= read -r l; do echo "# features: $l"; done <<<"$feats"
nwant=0
for f in $want; do
	nwant=$((nwant + 1))
	grep -qx "$f: Supported" <<<"$feats" ||
		err "damo features: $(grep "^$f:" <<<"$feats" || echo "$f: not listed")"
done
echo "# $nwant probe, attrs and allow features checked"

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

echo "# damo $(PYTHONPATH=$DAMO_PY python3 -c 'import damo_version; print(damo_version.__version__)')"
"$DAMO" start --ops paddr -s 5ms -a 100ms -m "$MAXR" \
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
"$DAMO" start --ops paddr -m "$MAXR" --probe --probe_filter allow hugepage_size 2M 2M ||
	fail "damo start --probe_filter allow hugepage_size 2M 2M"
t=$(cat /sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/monitoring_attrs/probes/0/filters/0/type)
[ "$t" = hugepage_size ] || fail "probe filter type is '$t', not hugepage_size"
"$DAMO" stop

# --- a probe with a prep: access monitoring done by a probe ---------------
if "$DAMO" start --ops paddr -s 5ms -a 100ms -m "$MAXR" --probe --probe_prep set_pgidle \
	--probe_filter allow pgidle_unset --probe_weight 1; then
	p=$CTX/monitoring_attrs/probes/0
	v=$(readf "$p/preps/nr_preps")
	[ "$v" = 1 ] || err "damo --probe_prep set_pgidle: preps/nr_preps reads '$v', not 1"
	v=$(readf "$p/preps/0/prep_action")
	[ "$v" = set_pgidle ] || err "damo --probe_prep set_pgidle: preps/0/prep_action reads '$v', not set_pgidle"
	v="$(readf "$p/filters/0/type") $(readf "$p/filters/0/allow") $(readf "$p/weight")"
	[ "$v" = "pgidle_unset Y 1" ] || err "probe filter type, allow, weight read '$v', not 'pgidle_unset Y 1'"
	sleep 3
	if out=$("$DAMO" report access --raw_number \
		--format_region "<start address> <end address> <probe hits>"); then
		n=$(awk 'NF == 3 && $1 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/' <<<"$out" | wc -l)
		echo "# damo report access: $n regions with one probe hit column"
		[ "$n" -gt 0 ] || { echo "$out" | head -5 | sed 's/^/# /'
			err "damo report access with a prep probe: no region line with one probe hit column"; }
	else
		err "damo report access with a prep probe: $out"
	fi
	if out=$("$DAMO" report attrs 2>&1); then
		echo "$out" | head -3 | sed 's/^/# report attrs: /'
	else
		err "damo report attrs: $(echo "$out" | tail -3)"
	fi
	"$DAMO" stop || err "damo stop (prep probe)"
else
	err "damo start --probe --probe_prep set_pgidle --probe_filter allow pgidle_unset --probe_weight 1"
fi

# --- the DAMOS probe_hits_wsum filter, an 'allow' filter -------------------
# (damo 3.4.1 refuses --damos_action after --probe, "wrong position of
# --damos_action", and crashes on the --kdamond --damon_ctx form: the
# scheme is started without probes, which is enough for the files)
if out=$("$DAMO" start --ops paddr -s 5ms -a 100ms -m "$MAXR" \
	--damos_action stat --damos_filter allow probe_hits_wsum 1 100 2>&1); then
	f=$CTX/schemes/0/filters/0
	v="$(readf "$f/type") $(readf "$f/allow") $(readf "$f/matching") $(readf "$f/min") $(readf "$f/max")"
	[ "$v" = "probe_hits_wsum Y Y 1 100" ] ||
		err "DAMOS filter type, allow, matching, min, max read '$v', not 'probe_hits_wsum Y Y 1 100'"
	sleep 2
	out=$("$DAMO" report access 2>&1) || err "damo report access with a probe_hits_wsum filter: $(echo "$out" | tail -3)"
	"$DAMO" stop || err "damo stop (probe_hits_wsum)"
else
	err "damo start --damos_action stat --damos_filter allow probe_hits_wsum 1 100: $(echo "$out" | tail -3)"
	"$DAMO" stop >/dev/null 2>&1
fi
[ "$errs" -eq 0 ] || fail "$errs checks failed (see above)"
echo "# PASS"
