#!/bin/bash
# VM test: the DAMON sysfs interface exists, and a kdamond can be created,
# started on the physical address space (paddr) and stopped again.
# Exit 0 = pass, 4 = skip, anything else = fail (see guest/run-tests.sh).
set -euo pipefail
A=/sys/kernel/mm/damon/admin
K=$A/kdamonds/0
C=$K/contexts/0

fail() { echo "FAIL: $*"; exit 1; }
expect() { # <file> <value>
	local v; v=$(cat "$1")
	[ "$v" = "$2" ] || fail "$1 is '$v', expected '$2'"
}
cleanup() {
	[ -e "$K/state" ] && [ "$(cat "$K/state")" = on ] && echo off >"$K/state"
	echo 0 >"$A/kdamonds/nr_kdamonds"
}

[ -d "$A" ] || fail "$A does not exist"
# earlier tests may have left kdamond directories: removing them must work
echo 0 >"$A/kdamonds/nr_kdamonds"
expect "$A/kdamonds/nr_kdamonds" 0
trap cleanup EXIT
echo 1 >"$A/kdamonds/nr_kdamonds"
[ -d "$K" ] || fail "nr_kdamonds=1 did not create $K"
expect "$K/state" off
echo 1 >"$K/contexts/nr_contexts"
grep -qw paddr "$C/avail_operations" || fail "paddr not in $C/avail_operations"
echo paddr >"$C/operations"
expect "$C/operations" paddr
echo 1 >"$C/targets/nr_targets"

echo on >"$K/state"
expect "$K/state" on
pid=$(cat "$K/pid")
[ "$pid" -gt 0 ] && [ -d "/proc/$pid" ] || fail "kdamond pid '$pid' is not a running task"
grep -q '^kdamond' "/proc/$pid/comm" || fail "pid $pid is '$(cat "/proc/$pid/comm")', not a kdamond"
sleep 1
expect "$K/state" on

echo off >"$K/state"
for _ in $(seq 50); do [ "$(cat "$K/state")" = off ] && break; sleep 0.1; done
expect "$K/state" off
expect "$K/pid" -1
echo "kdamond $pid started on paddr and stopped"
