# Entry points of the DAMON series project (details: README.md; scripts/*.sh
# each say how they work at the top).  All build output goes to $(BUILD)
# (default ./build, git-ignored); PATCHES=<dir> tests another series directory.
SHELL := /bin/bash
S := scripts

.PHONY: help setup tree export run build build-debug deb kunit vm-shell vm-test checkpatch sparse check check-full check-install check-boot

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

setup: ## install packages (root), damo, unpack the pinned base, create the patched tree
	$(S)/setup-deps.sh
	$(S)/setup-damo.sh
	$(S)/setup-base.sh
	$(S)/tree.sh

run: ## the main job: build the patched kernel, boot it in QEMU, show data attributes monitoring at work
	$(S)/run-demo.sh

tree: ## (re)create build/linux branch series = base + patches/*.patch (saves local work first)
	$(S)/tree.sh

export: ## write build/linux's base..series back to patches/ (git format-patch + cover letter)
	$(S)/export-series.sh

build: ## incremental build of the x86_64 guest kernel (build/x86)
	$(S)/build-guest.sh

build-debug: ## incremental build of the debug guest kernel (build/x86-debug)
	$(S)/build-guest.sh debug

deb: ## Debian packages in build/deb: the damon-probes tools, and the kernel (Debian's cloud-amd64 config; KCONFIG=<file>)
	$(S)/build-deb.sh all

kunit: ## DAMON KUnit tests on UML (extra kunit.py args: KUNIT_ARGS=...)
	$(S)/run-kunit.sh $(KUNIT_ARGS)

vm-shell: build ## root shell in the guest (host / read-only; Ctrl-A x quits)
	$(S)/run-vm.sh

vm-test: ## kselftests + vm-tests/ in the guest (only some: T="damon-sysfs-present.sh sysfs.sh")
	$(S)/check-vm.sh $(T)

checkpatch: ## checkpatch --strict on patches/
	$(S)/check-checkpatch.sh

sparse: ## sparse on mm/damon/, compared with the base
	$(S)/check-sparse.sh

check: ## the whole test run (CI): deps, damo, base, install, python, tools, deb, links, series, checkpatch, sparse, kunit, configs, vm, boot
	$(S)/check.sh

check-full: ## check + the debug kernel (KASAN/lockdep/kmemleak) running the VM tests
	$(S)/check.sh --full

check-boot: ## boot the packaged kernel and damon-probes in a Debian 12 disk image under systemd (root; ~4-6 min; KFLAVOUR=cloud: the Debian-config kernel)
	$(S)/check-boot.sh

check-install: ## prove the install path from a clean Debian 12 root (root; ~5 min)
	$(S)/check-install.sh
