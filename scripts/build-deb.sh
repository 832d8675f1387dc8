#!/bin/bash
# usage: scripts/build-deb.sh [tools|kernel|all]        (make deb: all)
# Debian packages into $BUILD/deb/:
#   tools   damon-probes_<v>_<arch>.deb: tools/damon-probe-metrics,
#           tools/damon-probes-setup, their units and man pages and the
#           example config as /etc/damon-probes/damon-probes.conf, built by
#           dpkg-buildpackage from packaging/damon-probes/debian; lintian
#           must report no error or warning (packaging/lintian-overrides
#           lists what is accepted, with the reason).
#   kernel  linux-image-<release>_*.deb (and linux-headers, linux-libc-dev)
#           of the patched tree $TREE at branch "series", by the kernel's own
#           "make bindeb-pkg", out of tree in $BUILD/deb/kernel-<flavour>.
#           The release is <base version>+damonprobes<N> (LOCALVERSION,
#           default +damonprobes1), so it installs beside Debian's kernel.
#           Config: KCONFIG=<file> (a fleet's own), else Debian's
#           cloud-amd64 config of the base version, from the
#           linux-config-6.12 package (apt-get download; the machine's own
#           apt sources).  KFLAVOUR=guest packages the VM tests' kernel
#           ($BUILD/x86, configs/guest.config, which can boot systemd from
#           a virtio disk) instead: the boot test's, relinked in place.
#           Package version: <base package version><local version>.
#           Debian's signing keys and BTF/debug info are turned off (no key
#           material in the source package, no pahole, 2-core build time).
set -eu
. "$(dirname "$0")/lib.sh"
what=${1:-all}
DEB=$BUILD/deb
mkdir -p "$DEB"

build_tools() {
	local t src ver log=$LOGS/deb-tools.log
	t=$(date +%s)
	ver=$(dpkg-parsechangelog -l "$REPO/packaging/damon-probes/debian/changelog" -S Version)
	src=$DEB/src/damon-probes-$ver
	rm -rf "$DEB/src"
	mkdir -p "$src"
	cp -a "$REPO/packaging/damon-probes/debian" "$REPO/packaging/damon-probes/man" "$src/"
	cp -a "$REPO/tools/damon-probe-metrics.c" "$REPO/tools/damon-probes-setup" \
		"$REPO/tools/damon-probe-metrics.service" "$REPO/tools/damon-probes.service" \
		"$REPO/packaging/examples/fleet.conf" "$src/"
	say "building damon-probes $ver (dpkg-buildpackage; log: $log)"
	(cd "$src" && dpkg-buildpackage -us -uc -b) >"$log" 2>&1 ||
		{ tail -20 "$log" >&2; die "dpkg-buildpackage of damon-probes (log: $log)"; }
	mv "$DEB"/src/damon-probes_"$ver"_*.deb "$DEB/"
	say "linting $(basename "$DEB"/damon-probes_"$ver"_*.deb)"
	lintian --fail-on error,warning --suppress-tags-from-file "$REPO/packaging/lintian-overrides" \
		"$DEB"/damon-probes_"$ver"_*.deb >>"$log" 2>&1 ||
		{ grep -E '^[EW]: ' "$log" >&2; die "lintian of damon-probes (log: $log)"; }
	say "damon-probes $ver built and lintian-clean in $(since "$t")s: $(ls -s --block-size=K "$DEB"/damon-probes_"$ver"_*.deb | awk '{print $1}')"
}

# Debian's cloud-amd64 config of the base version (linux-config-6.12).
debian_config() {
	local out=$DEB/config.amd64_none_cloud-amd64 d=$DEB/linux-config
	[ -f "$out" ] && { echo "$out"; return; }
	rm -rf "$d" && mkdir -p "$d"
	(cd "$d" && apt-get download -q "linux-config-6.12=$BASE_VERSION") >"$LOGS/deb-config.log" 2>&1 ||
		die "apt-get download linux-config-6.12=$BASE_VERSION (log: $LOGS/deb-config.log)"
	dpkg-deb -x "$d"/linux-config-6.12_*.deb "$d/x"
	xz -dc "$d"/x/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz >"$out"
	echo "$out"
}

build_kernel() {
	local t flavour=${KFLAVOUR:-cloud} obj cfg log rel ver
	t=$(date +%s)
	obj=$DEB/kernel-$flavour
	log=$LOGS/deb-kernel-$flavour.log
	[ "$(git -C "$TREE" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse series)" ] &&
		git -C "$TREE" diff --quiet HEAD ||
		die "$TREE is not clean at branch series (scripts/tree.sh makes it)"
	if [ "$flavour" = guest ]; then
		# the VM tests' kernel, packaged in its own build dir: make
		# relinks for the local version and reuses every object (a copy
		# of the dir would not: objtool's absolute paths rebuild it all)
		obj=$BUILD/x86
		"$REPO/scripts/build-guest.sh" >"$log" 2>&1 ||
			{ tail -20 "$log" >&2; die "building the guest kernel (log: $log)"; }
	else
		mkdir -p "$obj"
		cfg=${KCONFIG:-$(debian_config)}
		cp "$cfg" "$obj/.config"
		"$TREE/scripts/config" --file "$obj/.config" \
			--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
			-d MODULE_SIG_ALL -d DEBUG_INFO_BTF -d DEBUG_INFO_DWARF5 \
			-d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -e DEBUG_INFO_NONE \
			-e DAMON -e DAMON_PADDR -e DAMON_VADDR -e DAMON_SYSFS
		make -C "$TREE" O="$obj" ARCH=x86_64 olddefconfig >"$log" 2>&1 ||
			die "make olddefconfig (log: $log)"
	fi
	for o in DAMON DAMON_PADDR DAMON_VADDR DAMON_SYSFS; do
		grep -qx "CONFIG_$o=y" "$obj/.config" || die "CONFIG_$o is not y in $obj/.config"
	done
	rel=${LOCALVERSION-+damonprobes1}
	ver=$BASE_VERSION$rel
	rm -f "$DEB"/linux-*_"$ver"_* "$(dirname "$obj")"/linux-*_"$ver"_*
	say "building the $flavour kernel packages (bindeb-pkg -j$JOBS; log: $log)"
	make -C "$TREE" O="$obj" ARCH=x86_64 -j"$JOBS" "$(make_cc)" LOCALVERSION="$rel" \
		KDEB_SOURCENAME=linux-damonprobes KDEB_PKGVERSION="$BASE_VERSION$rel" \
		bindeb-pkg >>"$log" 2>&1 ||
		{ tail -30 "$log" >&2; die "make bindeb-pkg (log: $log)"; }
	# bindeb-pkg writes next to the build dir
	[ "$(dirname "$obj")" = "$DEB" ] || mv "$(dirname "$obj")"/linux-*_"$ver"_* "$DEB/"
	say "$flavour kernel packages built in $(since "$t")s:"
	ls -s --block-size=M "$DEB"/linux-*_"$ver"_*.deb >&2
}

case $what in
tools) build_tools ;;
kernel) build_kernel ;;
all) build_tools; build_kernel ;;
*) die "usage: $0 [tools|kernel|all]" ;;
esac
