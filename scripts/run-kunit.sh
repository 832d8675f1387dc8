#!/bin/bash
# usage: scripts/run-kunit.sh [no-sysfs|i386] [extra kunit.py run args, e.g. 'damon-sysfs*']
# Build and run the DAMON KUnit suites on UML:
#   tools/testing/kunit/kunit.py run --kunitconfig=configs/kunitconfig \
#       --build_dir=$BUILD/kunit --json=$LOGS/kunit.json
# no-sysfs: configs/kunitconfig-no-sysfs (DAMON_SYSFS=n, MEMCG=n) in
#   $BUILD/kunit-no-sysfs, logs $LOGS/kunit-no-sysfs.{log,json}.
# i386: configs/kunitconfig on a 32-bit x86 kernel in QEMU (kunit.py --arch
#   i386: TCG, qemu-system-i386), so that 32-bit arithmetic runs, not only
#   compiles; $BUILD/kunit-i386, logs $LOGS/kunit-i386.{log,json}.
# The verdict comes from kunit.py's JSON results (KernelCI format: nested
# groups of test cases with status PASS, FAIL, SKIP or ERROR), not from its
# text: it passes only if kunit.py exits 0, at least one case ran, and every
# case is PASS.  A KUnit skip fails too, unless configs/kunit-expected-skips
# lists the case for this mode with its reason (reported as skipped).  Ends with "N passed, N failed[, N skipped]" and names the cases
# that did not pass.  Full output: $LOGS/kunit[-no-sysfs].log.
set -eu
. "$(dirname "$0")/lib.sh"
cfg=$REPO/configs/kunitconfig bdir=$BUILD/kunit name=kunit arch=() where=UML mode=uml
case ${1:-} in
no-sysfs)
	cfg=$REPO/configs/kunitconfig-no-sysfs bdir=$BUILD/kunit-no-sysfs name=kunit-no-sysfs mode=no-sysfs
	shift ;;
i386)
	bdir=$BUILD/kunit-i386 name=kunit-i386 arch=(--arch i386) where="i386 in QEMU" mode=i386
	shift ;;
esac
log=$LOGS/$name.log json=$LOGS/$name.json
[ -e "$TREE/.git" ] || die "no kernel tree in $TREE: run scripts/setup-base.sh"

t=$(date +%s)
say "KUnit ($where, ${cfg##*/}): building and running DAMON tests (-j$JOBS${USE_CCACHE:+, ccache})"
rm -f "$json"
rc=0
(cd "$TREE" && ./tools/testing/kunit/kunit.py run --kunitconfig="$cfg" \
	${arch[@]+"${arch[@]}"} --build_dir="$bdir" --jobs="$JOBS" --make_options "$(make_cc)" \
	--json="$json" "$@") >"$log" 2>&1 || rc=$?

if [ ! -s "$json" ]; then
	{ grep -E -A3 'error:|Error [0-9]+|ERROR:|not in .config|\*\*\*' "$log" || tail -40 "$log"; } | tail -40 >&2
	echo "0 passed, 1 failed"
	die "KUnit: kunit.py rc=$rc and no JSON results (build or boot failed; full log: $log)"
fi
# "<passed> <failed> <skipped>" then one "<STATUS> <suite>.<case>" per case
# that did not pass; expected skips are counted as skipped and named on stderr
counts=$(python3 - "$json" "$mode" "$REPO/configs/kunit-expected-skips" <<'PY'
import json, sys
n = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
bad = []
expected = {}
for line in open(sys.argv[3]):
    if line.strip() and not line.startswith('#'):
        mode, rest = line.split(None, 1)
        case, reason = rest.split(':', 1)
        if mode == sys.argv[2]:
            expected[case.strip()] = reason.strip()
def walk(g, path):
    for c in g.get('test_cases', []):
        name = '.'.join(path + [c['name']])
        if c['status'] == 'SKIP' and name in expected:
            n['SKIP'] += 1
            print('expected skip: %s: %s' % (name, expected[name]), file=sys.stderr)
            continue
        st = c['status'] if c['status'] in n else 'FAIL'
        if st == 'SKIP':
            st = 'FAIL'
        n[st] += 1
        if c['status'] != 'PASS':
            bad.append('%s %s' % (c['status'], name))
    for s in g.get('sub_groups', []):
        walk(s, path + [s['name']])
walk(json.load(open(sys.argv[1])), [])
print(n['PASS'], n['FAIL'], n['SKIP'])
print('\n'.join(bad))
PY
)
read -r passed failed skipped <<<"$(head -1 <<<"$counts")"
bad=$(tail -n +2 <<<"$counts")
if [ "$rc" -eq 0 ] && [ "$passed" -gt 0 ] && [ -z "$bad" ]; then
	say "KUnit: $passed cases passed, $skipped expected skip(s), in $(since "$t")s"
	if [ "$skipped" -gt 0 ]; then echo "$passed passed, 0 failed, $skipped skipped"
	else echo "$passed passed, 0 failed"; fi
	exit 0
fi
if [ -n "$bad" ]; then
	echo "KUnit cases that did not pass:" >&2
	sed 's/^/  /' <<<"$bad" >&2
	{ grep -E -B8 '\[(FAILED|CRASHED|SKIPPED)\]' "$log" | grep -vE '\[PASSED\]' || true; } | tail -60 >&2
fi
[ "$failed" -gt 0 ] || failed=1
echo "$passed passed, $failed failed"
die "KUnit: kunit.py rc=$rc, $passed passed, $failed not passed:" $(awk '{print $2}' <<<"$bad") "(full log: $log)"
