#!/bin/bash
# usage: scripts/run-demo.sh   (what `make run` does)
# The main job: set everything up (packages, pinned base, patched tree, guest
# kernel, tools), boot the patched kernel in QEMU and run demo/attr-demo.py in
# it, which prints hot/warm/cold memory by data attribute (anonymous, memcg
# /demo, 2 MiB THP), each estimate with its standard error, next to the
# page-level truth; then draw the picture on the host: the guest's
# "DEMO-RECORD <json>" line (every region of every window) goes to
# $BUILD/demo/record.json, not to the screen, and demo/plot.py (with
# Debian's python3-matplotlib) renders it as $BUILD/demo/attributes.png.
# Environment: MEM (guest memory, default 2G), WINDOWS (aggregation windows
#   to average, 20), SAMPLE_US (5000), AGGR_US (100000), PROBES (subset of
#   "anon,memcg,thp"), SKIP_TREE=1 (build the tree as it is, without
#   re-applying patches/).
# PROM=1 runs demo/prom-demo.py instead: the same workload and probes, the
#   results through tools/damon-probe-metrics, prometheus-node-exporter and
#   prometheus in the guest, PromQL answers next to the truth (WINDOWS is
#   then the seconds of scrapes to average).
set -eu
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)
step() { say "[$1/6] $2 ($(since "$t0") s elapsed)"; }

step 1 "installing the Debian packages the harness needs"
"$REPO/scripts/setup-deps.sh"
"$REPO/scripts/setup-damo.sh"
step 2 "unpacking the pinned base ($BASE_PKG $BASE_VERSION), once"
"$REPO/scripts/setup-base.sh"
if [ -z "${SKIP_TREE:-}" ]; then
	step 3 "applying patches/ on the base"
	"$REPO/scripts/tree.sh"
else
	step 3 "SKIP_TREE=1: building $TREE as it is"
fi
step 4 "building the guest kernel (first time: several minutes on 2 cores)"
"$REPO/scripts/build-guest.sh" &
build=$!
while kill -0 "$build" 2>/dev/null; do
	sleep 30
	kill -0 "$build" 2>/dev/null || break
	say "      ... still building: $(find "$BUILD/x86" -name '*.o' 2>/dev/null | wc -l) objects so far, $(since "$t0") s elapsed"
done
wait "$build"
step 5 "building the userspace tools (workload, page scanner, ticker, metrics)"
make -s -C "$REPO/tools" OUT="$BUILD/tools"
demo=attr-demo.py
[ -z "${PROM:-}" ] || demo=prom-demo.py
step 6 "booting the patched kernel in QEMU and running demo/$demo"
out=$BUILD/demo
mkdir -p "$out"
rm -f "$out/record.json" "$out/attributes.png"
# the record line (100-300 KB of JSON) is for plot.py, not for the screen;
# the console log keeps it
MEM=${MEM:-2G} TIMEOUT=${TIMEOUT:-600} VM_LOG=$LOGS/demo.log \
	"$REPO/scripts/run-vm.sh" \
	-e "WINDOWS=${WINDOWS:-20}" -e "SAMPLE_US=${SAMPLE_US:-5000}" \
	-e "AGGR_US=${AGGR_US:-100000}" -e "PROBES=${PROBES:-anon,memcg,thp}" \
	-- python3 "$REPO/demo/$demo" | grep --line-buffered -v '^DEMO-RECORD '
if [ "$demo" = attr-demo.py ]; then
	sed -n 's/^DEMO-RECORD //p' "$LOGS/demo.log" | tail -1 >"$out/record.json"
	[ -s "$out/record.json" ] || die "the demo printed no DEMO-RECORD line (console log: $LOGS/demo.log)"
	"$DEB_PYTHON" "$REPO/demo/plot.py" "$out/record.json" "$out/attributes.png" >/dev/null ||
		die "demo/plot.py could not draw $out/record.json"
	say "the picture: $out/attributes.png (record: $out/record.json; again: $DEB_PYTHON demo/plot.py $out/record.json OUT.png)"
fi
say "done in $(since "$t0") s (console log: $LOGS/demo.log)"
