#!/bin/bash
# usage: bench/debian-kernel.sh                                     (root)
# The overhead benchmark on the kernel users run: the series built with
# Debian's cloud-amd64 config (scripts/build-deb.sh kernel: the package of
# `make deb`) against Debian's own binary linux-image-<abi>-cloud-amd64 of
# the same version (apt-get download from the machine's own apt sources).
# Both are installed with dpkg in one fresh Debian 12 root (scripts/
# lib-root.sh) with python3 and initramfs-tools, made into an ext4 image
# and booted in turn under QEMU icount (single-threaded TCG, 1 vCPU, 1 GiB)
# with bench/debian-kernel-init.sh as PID 1, which runs
# bench/overhead-guest.py on paddr and vaddr.  Debian's config has no
# function profiler: the function tracer counts the region samples
# (COUNT=tracer).  Configurations: 0 probes on both kernels, 4x3 (mainline's
# filter types) on the series.  Writes bench/results/debian-kernel.md.
# Environment: REPS (5), SEG_SECONDS (4), OPS ("paddr vaddr").
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$REPO/scripts/lib-root.sh"
B=$BUILD/bench-debian
root=$B/root
img=$B/disk.img
DEB=$BUILD/deb
REL=+damonprobes1
abi=${BASE_VERSION%%-*}+deb12
debian_pkg=linux-image-$abi-cloud-amd64
t=$(date +%s)
root_prereq
trap 'root_release "$root"' EXIT
mkdir -p "$B/debs"

# the series' linux-image package of the cloud-amd64 config, if built
cloud_deb() {
	local f
	for f in "$DEB"/linux-image-*"$REL"_*.deb; do
		case $f in *-dbg_*) continue ;; esac
		[ -f "$f" ] || continue
		# grep reads it all: -q would end the pipe early (SIGPIPE)
		dpkg-deb --fsys-tarfile "$f" | tar -xO --wildcards './boot/config-*' |
			grep '^CONFIG_VIRTIO_BLK=m' >/dev/null && echo "$f"
	done
}
series_deb=$(cloud_deb)
if [ -z "$series_deb" ]; then
	say "no cloud-amd64 package of the series in $DEB: building it (1-2 hours on 2 cores)"
	KFLAVOUR=cloud LOCALVERSION=$REL "$REPO/scripts/build-deb.sh" kernel
	series_deb=$(cloud_deb)
	[ -n "$series_deb" ] || die "scripts/build-deb.sh kernel made no cloud-amd64 package"
fi
(cd "$B/debs" && rm -f linux-image-*.deb &&
	apt-get download -q "$debian_pkg=$BASE_VERSION") >"$LOGS/bench-debian-download.log" 2>&1 ||
	die "apt-get download $debian_pkg=$BASE_VERSION (log: $LOGS/bench-debian-download.log)"
make -s -C "$REPO/tools" OUT="$BUILD/tools"

say "root: fresh Debian 12, python3, initramfs-tools, both kernels"
root_release "$root"
wipe "$root"
root_fresh "$root" >"$LOGS/bench-debian-root.log" 2>&1
cp "$series_deb" "$B"/debs/linux-image-*.deb "$root/tmp/"
in_root() { root_apt "$root" "$@"; }
{
	in_root apt-get update -q
	in_root apt-get install -y -q --no-install-recommends python3 initramfs-tools zstd kmod
	debs=("$root"/tmp/linux-image-*.deb)
	in_root apt-get install -y -q --no-install-recommends "${debs[@]#"$root"}"
} >>"$LOGS/bench-debian-root.log" 2>&1 || die "installing into the root (log: $LOGS/bench-debian-root.log)"
rm -f "$root"/tmp/*.deb
d=$root/usr/local/lib/bench
mkdir -p "$d"
cp "$REPO/bench/overhead-guest.py" "$REPO/guest/damon_probes.py" "$BUILD/tools/attr-workload" "$d/"
install -m 755 "$REPO/bench/debian-kernel-init.sh" "$d/init"
echo damon-bench >"$root/etc/hostname"

raw=$LOGS/bench-debian-kernel.jsonl
: >"$raw"
for k in series debian; do
	case $k in
	series) kver=${BASE_VERSION%%-*}$REL; cfg="0 4x3" ;;
	debian) kver=$abi-cloud-amd64; cfg=stock ;;
	esac
	if [ ! -f "$root/boot/vmlinuz-$kver" ] || [ ! -f "$root/boot/initrd.img-$kver" ]; then
		die "no kernel or initrd $kver in the root"
	fi
	cat >"$d/bench.env" <<-EOF
	KERNEL=$k
	CONFIGS='$cfg'
	FILTERS=mainline
	COUNT=tracer
	REPS=${REPS:-5}
	SEG_SECONDS=${SEG_SECONDS:-4}
	OPS='${OPS:-paddr vaddr}'
	ATTR_WORKLOAD=/usr/local/lib/bench/attr-workload
	TICKER=0
	EOF
	root_release "$root"
	rm -f "$img"
	mke2fs -q -t ext4 -d "$root" "$img" 3G
	log=$LOGS/bench-debian-$k.log
	say "running the '$k' kernel ($kver; console: $log)"
	set +e
	timeout -k 10 "${TIMEOUT:-3600}" qemu-system-x86_64 -accel tcg,thread=single \
		-icount shift=0,sleep=off -cpu max -smp 1 -m 1G -machine q35 \
		-nodefaults -nographic -no-reboot -serial mon:stdio \
		-kernel "$root/boot/vmlinuz-$kver" -initrd "$root/boot/initrd.img-$kver" \
		-append "root=/dev/vda rw console=ttyS0 init=/usr/local/lib/bench/init panic=-1 oops=panic tsc=reliable tsc_early_khz=1000000 quiet" \
		-drive file="$img",format=raw,if=virtio </dev/null 2>&1 |
		sed -u 's/\r$//' >"$log"
	set -e
	grep -aq '^BENCH-EXIT: rc=0' "$log" || die "the '$k' run failed (console: $log)"
	grep -a '^{' "$log" >>"$raw"
done
SERIES_DEB=${series_deb##*/} DEBIAN_DEB=$(basename "$B"/debs/linux-image-*.deb) \
	SMP=1 MEM=1G python3 "$REPO/bench/report.py" debian-kernel "$raw"
say "bench/debian-kernel.sh: $(since "$t")s"
