#!/bin/bash
# usage: scripts/check-boot.sh             (make check's 'boot' stage; root)
# The packaged path, booted the way a fleet boots it: systemd as PID 1 on a
# Debian 12 disk, the packaged kernel, the damon-probes package, Debian's
# prometheus-node-exporter; no 9p root, no project init.  Steps:
#   debs    KFLAVOUR=guest scripts/build-deb.sh kernel: the VM tests' kernel
#           (configs/guest.config) as linux-image-<release>.deb, and
#           scripts/build-deb.sh tools: damon-probes_<v>.deb
#   root    a fresh copy of the pristine debootstrap root of the install
#           stage (scripts/lib-root.sh), then in it: apt-get install
#           systemd-sysv, udev, prometheus-node-exporter, python3, procps and the
#           two packages (apt, as an operator would; the packages' units are
#           enabled by their own maintainer scripts).  The test's part:
#           /etc/damon-probes/boot-test.conf (probes anon, the memcg of
#           boot-workload.service, 2 MiB THP; the package's own
#           damon-probes.conf stays: two kdamonds), boot-workload.service
#           (tools/attr-workload: 128 MiB anonymous, 64 MiB THP) with a
#           damon-probes.service drop-in ordering it first (as
#           damon-probes.conf(5) says for a memcg probe), and
#           boot-test.service running guest/boot-test.py
#   image   an ext4 disk image of that root (mke2fs -d: no loop mount)
#   boot    QEMU (TCG) boots the image with the kernel the package installed
#           in its /boot: guest/boot-test.py checks the units, the metrics
#           and their values against the page-level truth and reboots (QEMU
#           -no-reboot exits: the guest kernel has no ACPI to power off);
#           booted again, it checks again, purges damon-probes, checks that
#           nothing is left running and reboots; it must print
#           "BOOT-TEST: PASS".
# KFLAVOUR=cloud boots the Debian cloud-amd64 config's package instead
# (scripts/build-deb.sh kernel builds it: 1-2 hours on 2 cores; its
# virtio_blk and ext4 are modules, so the image gets initramfs-tools and
# QEMU the initrd that the package's postinst made).
# Logs: $LOGS/check-boot-<step>.log; the consoles of the two boots:
# $LOGS/check-boot-vm-{1,2}.log.  TIMEOUT (default 900 s) bounds each boot.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-root.sh"
B=$BUILD/boot
root=$B/root
img=$B/disk.img
DEB=$BUILD/deb
REL=+damonprobes1
FLAVOUR=${KFLAVOUR:-guest}
case $FLAVOUR in guest|cloud) ;; *) die "KFLAVOUR is guest or cloud" ;; esac
root_prereq
trap 'root_release "$root"' EXIT

passed=0 times=()
t0=$(date +%s)
step() { # <name> <function>: the function runs with set -e in a subshell
	local t rc log=$LOGS/check-boot-$1.log
	t=$(date +%s)
	say "==== $1"
	set +e
	( set -e; "$2" ) >"$log" 2>&1
	rc=$?
	set -e
	if [ "$rc" != 0 ]; then
		tail -20 "$log"
		echo "1 failed step: $1"
		echo "$passed passed, 1 failed"
		die "boot test step $1 (log: $log)"
	fi
	times+=("$(printf '%-6s %5ss' "$1" "$(since "$t")")")
	passed=$((passed + 1))
}

debs() {
	KFLAVOUR=$FLAVOUR LOCALVERSION=$REL "$REPO/scripts/build-deb.sh" kernel
	"$REPO/scripts/build-deb.sh" tools
}

in_root() { root_apt "$root" "$@"; }

make_root() {
	local kimg tools t=/usr/local/lib/boot-test
	root_release "$root"
	wipe "$root"
	root_fresh "$root"
	kimg=$(ls "$DEB"/linux-image-*"$REL"_*.deb | grep -v -- -dbg_)
	[ "$(echo "$kimg" | wc -l)" = 1 ] || die "not one linux-image package: $kimg"
	tools=$DEB/damon-probes_$(dpkg-parsechangelog -l "$REPO/packaging/damon-probes/debian/changelog" -S Version)_$(dpkg --print-architecture).deb
	[ -f "$tools" ] || die "no $tools"
	mkdir -p "$root/debs"
	cp "$kimg" "$tools" "$root/debs/"
	in_root apt-get update -q
	in_root apt-get install -y -q --no-install-recommends systemd-sysv \
		prometheus-node-exporter python3 procps udev \
		$([ "$FLAVOUR" = cloud ] && echo initramfs-tools zstd)
	in_root apt-get install -y -q "/debs/${kimg##*/}" "/debs/${tools##*/}"
	rm -rf "$root/debs"
	# the booted system stops and starts units on package operations
	rm -f "$root/usr/sbin/policy-rc.d"
	echo damon-boot >"$root/etc/hostname"
	echo '/dev/vda / ext4 rw 0 1' >"$root/etc/fstab"
	mkdir -p "$root$t" "$root/etc/systemd/system/damon-probes.service.d" \
		"$root/etc/systemd/system/multi-user.target.wants"
	cp "$REPO/guest/boot-test.py" "$REPO/guest/damon_probes.py" \
		"$BUILD/tools/kpage-scan" "$BUILD/tools/attr-workload" "$root$t/"
	cat >"$root/etc/damon-probes/boot-test.conf" <<-EOF
	# the boot test's probes (scripts/check-boot.sh)
	[monitor]
	sample = 5ms
	aggr = 100ms
	[probe anon]
	filters = allow anon
	[probe workload]
	filters = allow memcg /system.slice/boot-workload.service
	[probe thp]
	filters = allow hugepage_size 2M 2M
	EOF
	cat >"$root/etc/systemd/system/damon-probes.service.d/boot-test.conf" <<-EOF
	[Unit]
	After=boot-workload.service
	Wants=boot-workload.service
	EOF
	cat >"$root/etc/systemd/system/boot-workload.service" <<-EOF
	[Unit]
	Description=boot test workload: 128 MiB anonymous, 64 MiB THP
	[Service]
	ExecStart=$t/attr-workload --anon 128 --thp 64
	MemoryAccounting=yes
	[Install]
	WantedBy=multi-user.target
	EOF
	cat >"$root/etc/systemd/system/boot-test.service" <<-EOF
	[Unit]
	Description=boot test checks (guest/boot-test.py)
	After=multi-user.target damon-probe-metrics.service prometheus-node-exporter.service
	[Service]
	Environment=BOOT_TEST_KERNEL=$(basename "$kimg" | sed -E 's/^linux-image-([^_]+)_.*/\1/')
	ExecStart=/usr/bin/python3 $t/boot-test.py
	StandardOutput=journal+console
	StandardError=journal+console
	[Install]
	WantedBy=multi-user.target
	EOF
	ln -sf ../boot-workload.service ../boot-test.service \
		"$root/etc/systemd/system/multi-user.target.wants/"
	ls "$root"/boot/vmlinuz-*"$REL"
	for u in damon-probes damon-probe-metrics prometheus-node-exporter; do
		[ -L "$root/etc/systemd/system/multi-user.target.wants/$u.service" ] ||
			die "$u.service is not enabled by its package"
	done
	du -sxh "$root"
}

make_image() {
	root_release "$root"
	cp "$root"/boot/vmlinuz-*"$REL" "$B/vmlinuz"
	rm -f "$B/initrd"
	[ "$FLAVOUR" != cloud ] || cp "$root"/boot/initrd.img-*"$REL" "$B/initrd"
	rm -f "$img"
	mke2fs -q -t ext4 -L damon-boot -d "$root" "$img" 2G
	ls -ls "$img"
}

# One boot of the image, until the guest reboots or powers off (QEMU
# -no-reboot: a guest reboot ends QEMU, and the next boot is a cold one).
qemu_boot() { # <console log>
	local khz_bin=$BUILD/tools/tsc-khz rc
	[ -x "$khz_bin" ] || gcc -O2 -o "$khz_bin" "$REPO/tools/tsc-khz.c"
	set +e
	timeout -k 10 "${TIMEOUT:-900}" qemu-system-x86_64 -accel tcg,thread=multi \
		-cpu max -smp 2 -m 2G -machine q35 -nodefaults -nographic -no-reboot \
		-serial mon:stdio -kernel "$B/vmlinuz" \
		$([ -f "$B/initrd" ] && echo "-initrd $B/initrd") \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 panic_on_warn=1 oops=panic tsc=reliable tsc_early_khz=$("$khz_bin")" \
		-drive file="$img",format=raw,if=virtio </dev/null 2>&1 |
		sed -u 's/\r$//; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' >"$1"
	rc=${PIPESTATUS[0]}
	set -e
	grep -a '^.*BOOT-TEST:' "$1" | sed 's/^[^:]*: BOOT-TEST:/BOOT-TEST:/' || true
	[ "$rc" != 124 ] || die "timed out after ${TIMEOUT:-900}s (console: $1)"
	! grep -aq 'Kernel panic' "$1" || die "kernel panic: $(grep -am1 'Kernel panic' "$1") (console: $1)"
}

boot() {
	local log=$LOGS/check-boot-vm
	qemu_boot "$log-1.log"
	grep -aq 'BOOT-TEST: boot 1 passed: rebooting' "$log-1.log" ||
		die "$(grep -am1 'BOOT-TEST: FAIL' "$log-1.log" || echo 'boot 1 did not pass') (console: $log-1.log)"
	qemu_boot "$log-2.log"
	grep -aq 'BOOT-TEST: boot 2:' "$log-2.log" || die "no second boot (console: $log-2.log)"
	grep -aqE 'BOOT-TEST: PASS$' "$log-2.log" ||
		die "$(grep -am1 'BOOT-TEST: FAIL' "$log-2.log" || echo 'no BOOT-TEST: PASS') (console: $log-2.log)"
}

mkdir -p "$B"
step debs debs
step root make_root
step image make_image
step boot boot
echo "Step wall times:"
printf '  %s\n' "${times[@]}"
printf '  %-6s %5ss\n' total "$(since "$t0")"
echo "$passed passed, 0 failed"
