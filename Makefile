# SPDX-License-Identifier: GPL-2.0
# framewalk: build, test and demo entry points (Debian bookworm, as root).
#   make          build the modules for every kernel in KERNELS and the host tools
#   make check    every test, ending with "N passed, N failed"
#   make demo     the tour: the module in an arm64 guest, then a Cortex-M crash (V=1: with
#                 the build's and the guest runner's own lines)
#   make shell    a shell on the arm64 guest (KERNEL=6.12) with framewalk.ko, framewalk,
#                 trace-cmd and crashwalk: try every README example without a board
#   make bench    cost per traced call against the kernel's tracers, table + JSON
#   make fuzz     crashwalk's fuzz harnesses, FUZZ_SECONDS (60) each
#   make stress   the module stress test at full size on each kernel (about 10 minutes)
#   make deps     install packages and fetch the guest kernels (make does it when needed)
#   make install  framewalk, crashwalk and their man pages into DESTDIR/PREFIX (/usr/local),
#                 plugin_framewalk.so into libtraceevent's plugin directory; host tools only
#                 (fetches only their packages and d3: no kernel)
#   make uninstall  removes what make install put there
#   make deb      Debian packages framewalk-dkms, framewalk, crashwalk into build/deb/ (DEB_ARCH)
# The guest kernels, in $(FW_KERNEL_CACHE) (/var/cache/framewalk/kernels, outside the tree):
#   5.10         Debian bullseye's, 6.1 and 6.12 bookworm's
#   5.10-mcount  bullseye's 5.10 source built here with the -pg/_mcount hook and 16K pages
#   6.12-debug   6.12 built here with KASAN, lockdep, kmemleak, a shadow call stack...
#   7.2          unstable's newest (its series names it: fetched from sid, kbuild tools
#                rebuilt here for bookworm's glibc)
# make deps fetches or builds them; a built one is rebuilt only when its config changes.
KERNELS ?= 5.10 5.10-mcount 6.1 6.12 6.12-debug 7.2
export KERNELS

all: modules guest-bin host

deps:
	scripts/deps.sh

deps-quick:
	@scripts/deps.sh --quick

modules: deps-quick
	@for k in $(KERNELS); do scripts/build-modules.sh $$k || exit 1; done

guest-bin: deps-quick
	@scripts/build-guest-bin.sh

host: deps-quick
	@$(MAKE) -s -C userspace all asan
	@if [ -f analyzer/Makefile ]; then $(MAKE) -s -C analyzer; fi

# Only the host tools: their packages and JavaScript, no kernel, no module build.
deps-host:
	@scripts/deps.sh --host

install: deps-host
	$(MAKE) -C userspace install
	$(MAKE) -C analyzer install

uninstall:
	$(MAKE) -C userspace uninstall
	$(MAKE) -C analyzer uninstall

# Debian packages for DEB_ARCH (the host's by default; arm64 is cross-built), then lintian.
DEB_ARCH ?=
deb:
	@scripts/deps.sh --deb $(DEB_ARCH)
	@scripts/build-deb.sh $(DEB_ARCH)

check: all
	@scripts/check.sh

# A debug kernel's costs are its checks', not framewalk's: no demo or benchmark
# on it, and neither builds it.
PRODUCTION_KERNELS := $(filter-out %-debug,$(KERNELS))
bench: KERNELS := $(PRODUCTION_KERNELS)
# The demo boots one kernel (DEMO_KERNEL): it needs no other.
DEMO_KERNEL ?= 6.12
export DEMO_KERNEL
demo: KERNELS := $(DEMO_KERNEL)

demo: all
	@scripts/demo.sh

# One kernel is enough for a shell; its modules, the arm64 programs and the host tools.
KERNEL ?= 6.12
shell: deps-quick guest-bin
	@scripts/build-modules.sh $(KERNEL) >/dev/null
	@$(MAKE) -s -C userspace all
	@scripts/guest.sh -s -k $(KERNEL)

bench: all
	@scripts/bench.sh

# crashwalk's libFuzzer harnesses, FUZZ_SECONDS each (make check runs 10).
FUZZ_SECONDS ?= 60
fuzz: deps-quick
	@tests/fuzz/test_fuzz.sh $(FUZZ_SECONDS)

# The module stress test at full size (200 load/unload cycles, 60 rewrites) on each kernel.
stress: all
	@FW_STRESS_CYCLES=200 FW_STRESS_REWRITES=60 scripts/check.sh --guest-only

clean:
	rm -rf build
	@$(MAKE) -s -C userspace clean
	@if [ -f analyzer/Makefile ]; then $(MAKE) -s -C analyzer clean; fi

.PHONY: all deps deps-quick deps-host modules guest-bin host install uninstall deb check demo shell bench fuzz stress clean
