#!/bin/bash
# usage: scripts/run-vm.sh [-k bzImage | --debug] [-e VAR=value]... [--] [command [args...]]
# Boot the guest kernel in QEMU (TCG by default) with the host's root filesystem
# shared read-only over virtio-9p and guest/init.sh as PID 1, run
# <command> as root in the current directory, and exit with its exit status.
# Without a command: an interactive root shell on the serial console (quit the
# shell, or press Ctrl-A x to kill QEMU).  In the guest /tmp, /var/tmp, /root
# and /run are writable (in memory); the rest of the host is read-only.
#   -k <bzImage>   kernel to boot (default $BUILD/x86/arch/x86/boot/bzImage)
#   --debug        boot the debug kernel ($BUILD/x86-debug/...)
#   -e VAR=value   environment variable for the command (repeatable)
# Environment: MEM (default 2G), SMP (2), TIMEOUT (seconds, default 900, 0 = none;
#   no default timeout for the shell), ACCEL=tcg (default) | kvm | auto (KVM only
#   if a probe boot with it works; cached in $BUILD/vm/kvm-probe), VM_APPEND
#   (extra kernel command line), QEMU_EXTRA (extra QEMU args), VM_LOG (console
#   log, default $LOGS/vm.log), ICOUNT=1 (TCG only: single-threaded TCG with
#   -icount shift=0,sleep=off, so that the guest's clocks count instructions,
#   1 ns each, and an idle guest skips ahead: guest time does not depend on
#   the host's load).
# The guest always stops: hard timeout around QEMU, panic=-1 panic_on_warn=1
# oops=panic.  The guest's init prints "VM-EXIT: rc=N"; no such line (panic,
# timeout, crash) makes this script fail with a message saying why.
set -eu
. "$(dirname "$0")/lib.sh"

kernel=$BUILD/x86/arch/x86/boot/bzImage
envs=()
while [ $# -gt 0 ]; do
	case $1 in
	-k) kernel=${2:?-k needs a bzImage}; shift 2 ;;
	--debug) kernel=$BUILD/x86-debug/arch/x86/boot/bzImage; shift ;;
	-e) [[ ${2:-} == [A-Za-z_]*=* ]] || die "-e wants VAR=value, got '${2:-}'"; envs+=("$2"); shift 2 ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see $0 --help)" ;;
	*) break ;;
	esac
done
[ -f "$kernel" ] || die "no kernel $kernel: build it with scripts/build-guest.sh (or: build-guest.sh debug)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run scripts/setup-deps.sh"
[[ "$REPO$BUILD" != *[[:space:]]* ]] || die "paths with spaces cannot go on the kernel command line: $REPO $BUILD"
shell=$([ $# -eq 0 ] && echo 1 || true)

accel=${ACCEL:-tcg}
if [ "$accel" = auto ]; then
	accel=tcg probe=$BUILD/vm/kvm-probe
	if [ -w /dev/kvm ]; then
		if [ ! -f "$probe" ]; then
			say "ACCEL=auto: probing KVM with a test boot (result cached in $probe)"
			mkdir -p "$BUILD/vm"
			if ACCEL=kvm TIMEOUT=60 VM_LOG=$probe.log "$0" -k "$kernel" -- true >/dev/null 2>&1
			then echo kvm; else echo tcg; fi >"$probe"
		fi
		accel=$(cat "$probe")
	fi
	say "ACCEL=auto: using $accel"
fi
case $accel in
tcg) qaccel=tcg,thread=multi
     # QEMU refuses icount with multi-threaded TCG
     [ "${ICOUNT:-0}" = 0 ] || qaccel=tcg,thread=single ;;
kvm) qaccel=kvm ;;
*) die "ACCEL must be tcg, kvm or auto" ;;
esac

# The run directory (host side, read by the guest's init): the environment,
# working directory and command.
mkdir -p "$BUILD/vm"
run=$(mktemp -d "$BUILD/vm/run.XXXXXX")
trap 'rm -rf "$run"' EXIT
{
	printf 'export REPO=%q BUILD=%q TREE=%q PATCHES=%q\n' "$REPO" "$BUILD" "$TREE" "$PATCHES"
	printf 'export HARNESS_ACCEL=%q HARNESS_KERNEL=%q\n' "$accel" "$kernel"
	for e in ${envs[@]+"${envs[@]}"}; do printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"; done
	printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
	if [ -n "$shell" ]; then
		printf 'export TERM=%q\n' "${TERM:-linux}"
		printf 'VM_TTY_SIZE=%q\n' "$(stty size 2>/dev/null || true)"
	else
		printf 'VM_CMD=('; printf '%q ' "$@"; printf ')\n'
	fi
} >"$run/env"

# TCG: the guest's TSC is the host's.  Tell the guest its frequency: without
# ACPI it has nothing to calibrate it against but the PIT, which goes wrong
# when the host is busy (guest clock 5x too fast: see tools/tsc-khz.c).
tsc=
if [ "$accel" = tcg ] && [ "${ICOUNT:-0}" != 0 ]; then
	# under icount the TSC counts instructions: 1 GHz
	tsc=" tsc_early_khz=1000000"
elif [ "$accel" = tcg ] && [ "$(uname -m)" = x86_64 ]; then
	khz_bin=$BUILD/tools/tsc-khz
	if [ ! -x "$khz_bin" ] || [ "$REPO/tools/tsc-khz.c" -nt "$khz_bin" ]; then
		mkdir -p "$BUILD/tools"
		gcc -O2 -o "$khz_bin" "$REPO/tools/tsc-khz.c" || die "building tools/tsc-khz.c"
	fi
	tsc=" tsc_early_khz=$("$khz_bin")"
fi
append="console=ttyS0 root=hostroot rootfstype=9p ro"
append+=" rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose"
append+=" init=$REPO/guest/init.sh HARNESS_RUN=$run"
append+=" panic=-1 panic_on_warn=1 oops=panic tsc=reliable$tsc quiet ${VM_APPEND:-}"
# shellcheck disable=SC2206
qemu=(qemu-system-x86_64 -accel "$qaccel" -cpu max -smp "${SMP:-2}" -m "${MEM:-2G}"
	-machine q35 -nodefaults -nographic -no-reboot -serial mon:stdio
	-kernel "$kernel" -append "$append"
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot ${QEMU_EXTRA:-})
[ "$accel" != tcg ] || [ "${ICOUNT:-0}" = 0 ] || qemu+=(-icount shift=0,sleep=off)

if [ -n "$shell" ]; then
	say "VM shell ($accel, ${SMP:-2} CPUs, ${MEM:-2G}): exit the shell to stop the VM, Ctrl-A x kills it"
	exec timeout --foreground -k 10 "${TIMEOUT:-0}" "${qemu[@]}"
fi

log=${VM_LOG:-$LOGS/vm.log}
to=${TIMEOUT:-900}
t=$(date +%s)
set +e
# (plain text: no CRs, no terminal escape sequences from the firmware)
timeout -k 10 "$to" "${qemu[@]}" </dev/null 2>&1 |
	sed -u 's/\r$//; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' | tee "$log"
qrc=${PIPESTATUS[0]}
set -e
rc=$(sed -n 's/^VM-EXIT: rc=\([0-9]*\)$/\1/p' "$log" | tail -1)
if [ -n "$rc" ]; then
	say "VM: command exited with rc=$rc after $(since "$t")s ($accel)"
	exit "$rc"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "VM FAILED: timed out after ${to}s (TIMEOUT=$to); console log: $log" >&2
elif grep -q 'Kernel panic - not syncing' "$log"; then
	echo "VM FAILED: the guest kernel panicked: $(grep -m1 'Kernel panic - not syncing' "$log" | sed 's/^\[[ 0-9.]*\] //')" >&2
	splat=$(grep -m1 -E 'BUG:|WARNING:|KASAN:|Oops|general protection' "$log" || true)
	[ -z "$splat" ] || echo "  first splat: $splat" >&2
	echo "  console log: $log" >&2
else
	echo "VM FAILED: the guest stopped without a 'VM-EXIT: rc=N' line (qemu rc=$qrc); console log: $log" >&2
fi
exit 1
