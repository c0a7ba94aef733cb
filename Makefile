# SPDX-License-Identifier: GPL-2.0
#
# snode top-level Makefile. Each part owns a fragment:
#   tools/emu/emu.mk         deps, kernels, linux-source, qemu (build/ caches)
#   tools/emu/fm/fm.mk       snode-fm and its host unit tests
#   driver/driver.mk         snode.ko for KDIR and for every guest kernel, lint
#   selftests/selftests.mk   kselftest binaries and the VM test suites
#   selftests/link.mk        nl-check (spec vs uapi), ynl-stage, bench-link
#   tools/snode-perf/snode-perf.mk  snode-perf; tools/demo/demo.mk  make demo's tools
# Kernel modules themselves are described by ./Kbuild and driver/Kbuild.

TOP   := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build

.PHONY: all
all:

-include $(TOP)/tools/emu/emu.mk
-include $(TOP)/tools/emu/fm/fm.mk
-include $(TOP)/driver/driver.mk
-include $(TOP)/selftests/selftests.mk
include $(TOP)/libsnode/libsnode.mk
include $(TOP)/tools/snodectl/snodectl.mk
include $(TOP)/tools/snode-perf/snode-perf.mk
include $(TOP)/tools/demo/demo.mk
-include $(TOP)/selftests/emu/emu.mk
-include $(TOP)/selftests/link.mk

# Everything the tests need, built and staged for the guests.
.PHONY: check-build check demo bench
check-build: deps
	$(MAKE) -f $(TOP)/Makefile kernels linux-source qemu
	$(MAKE) -f $(TOP)/Makefile all modules-guest selftests emu-test-stage ynl-stage

check: check-build
	bash $(TOP)/tools/testing/run-all.sh

demo: check-build
	bash $(TOP)/tools/demo/demo.sh

# Benchmarks inside emulated nodes (tools/snode-perf/bench.sh), results in
# build/bench/; a timing never fails the build.
bench: check-build
	bash $(TOP)/tools/snode-perf/bench.sh
	bash $(TOP)/selftests/vm/link-bench.sh
