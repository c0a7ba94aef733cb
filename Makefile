# SPDX-License-Identifier: GPL-2.0
#
# snode top-level Makefile. Each part owns a fragment:
#   tools/emu/emu.mk         deps, kernels, linux-source, qemu (build/ caches)
#   tools/emu/fm/fm.mk       snode-fm and its host unit tests
#   driver/driver.mk         snode.ko for KDIR and for every guest kernel, lint
#   selftests/selftests.mk   kselftest binaries and the VM test suites
#   selftests/link.mk        nl-check (spec vs uapi), ynl-stage, devlink-stage,
#                            bench-link
#   tools/snode-fuzz/snode-fuzz.mk  snode-fuzz, make fuzz
#   tools/snode-perf/snode-perf.mk  snode-perf; tools/demo/demo.mk  make demo's tools
#   tools/testing/hw-contract/hw-contract.mk  driver, device model and hw doc agree
#   tools/lib/lib.mk         the tools' shared print path and helpers
#   tools/testing/cli/cli.mk cli-test: host tests of snodectl and the tools' helpers
#   install.mk               make install/uninstall, dkms-source, make deb
#   ofi/ofi.mk               the libfabric provider libsnode-fi.so, ofi_test,
#                            mpi_test (the MPI suite's job)
# Kernel modules themselves are described by ./Kbuild and driver/Kbuild.

TOP   := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build
# Compiling sub-makes (kbuild, the package build) use every CPU when make
# runs without -j, as CI's plain "make check" does; under a parent's -j they
# share its jobserver instead (an explicit -j there would warn, and lint
# counts warnings).
NPROC := $(shell nproc 2>/dev/null || echo 1)
SUBMAKE_JOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))
# the ABI: ioctls, and the netlink family rendered from its spec
UAPI_HDRS := $(TOP)/uapi/linux/snode.h $(TOP)/uapi/linux/snode_nl.h

.PHONY: all
all:

include $(TOP)/tools/lib/lib.mk
-include $(TOP)/tools/emu/emu.mk
-include $(TOP)/tools/emu/fm/fm.mk
-include $(TOP)/driver/driver.mk
-include $(TOP)/selftests/selftests.mk
include $(TOP)/libsnode/libsnode.mk
include $(TOP)/ofi/ofi.mk
include $(TOP)/tools/snodectl/snodectl.mk
include $(TOP)/tools/snode-fuzz/snode-fuzz.mk
include $(TOP)/tools/snode-perf/snode-perf.mk
include $(TOP)/tools/demo/demo.mk
include $(TOP)/tools/testing/hw-contract/hw-contract.mk
include $(TOP)/tools/testing/cli/cli.mk
include $(TOP)/install.mk
-include $(TOP)/selftests/emu/emu.mk
-include $(TOP)/selftests/link.mk

# emu-build: the emulated supernode on Debian's kernels, with everything the
# tests stage into the guests; check-build adds the debug kernel (about 15
# minutes cold), which make demo and make bench do not need.
.PHONY: emu-build check-build check check-full demo bench
# Each step's seconds go to build/check/build-steps (scripts/timed-step.sh),
# which run-all.sh's time table shows (STEP, tools/emu/emu.mk). The
# kernels and the kernel sources are downloads and unpacking (about 170 s
# one after the other, cold, of which about 70 s of CPU): they come while
# QEMU compiles.
emu-build: deps
	$(STEP) kernels+sources+qemu $(MAKE) -j3 -f $(TOP)/Makefile kernels linux-source qemu
	$(STEP) userspace+modules $(MAKE) -f $(TOP)/Makefile all modules-guest
	$(STEP) selftests+stage $(MAKE) -f $(TOP)/Makefile selftests \
		emu-test-stage ynl-stage devlink-stage

check-build: emu-build
	$(STEP) kernels-debug $(MAKE) -f $(TOP)/Makefile kernels-debug
	$(STEP) modules-debug $(MAKE) -f $(TOP)/Makefile modules-debug

# the time make started, before the build: run-all.sh's time table counts it
CHECK_T0 := $(shell date +%s)
check: check-build
	SNODE_CHECK_T0=$(CHECK_T0) bash $(TOP)/tools/testing/run-all.sh

# check and the debug-kernel suites kept out of check for its time budget
# (FULL_ONLY in tools/testing/run-all.sh)
check-full: check-build
	SNODE_CHECK_T0=$(CHECK_T0) bash $(TOP)/tools/testing/run-all.sh --full

demo: emu-build
	bash $(TOP)/tools/demo/demo.sh

# Benchmarks inside emulated nodes (tools/snode-perf/bench.sh), results in
# build/bench/; a timing never fails the build.
bench: emu-build
	bash $(TOP)/tools/snode-perf/bench.sh
	bash $(TOP)/selftests/vm/link-bench.sh
