# SPDX-License-Identifier: GPL-2.0
#
# Emulator and build-infrastructure fragment, included by the top-level
# Makefile. Everything fetched or built lands under $(BUILD).
#
# Targets:
#   deps          install missing host packages (scripts/install-deps.sh)
#   kernels       Debian 6.1 and 6.12 kernels + headers in build/kernels/<ver>
#   kernels-debug the debug guest kernel (KASAN, UBSAN, lockdep, kmemleak,
#                 fault injection) built from Debian's linux-source-6.12 with
#                 tools/emu/vm/debug.config, in build/kernels/debug
#   linux-source  kselftest harness, checkpatch, ynl in build/linux-source-<ver>
#   qemu          QEMU 7.2 with snode-nic in build/qemu
#   vm-down       stop a supernode left running by "snode-vm up"
#   tsc-khz       the host's TSC rate for the guests (part of "all")
#
# Variables for other fragments:
#   QEMU_BIN, SNODE_VM, KDIR_6_1, KDIR_6_12, KDIR_debug, KVER_6_1, KVER_6_12
#   (after "make kernels"), CHECKPATCH, KSELFTEST_DIR, YNL_DIR, and the stamp
#   files KERNEL_STAMP_6_1 / KERNEL_STAMP_6_12 / KERNEL_STAMP_debug /
#   LINUX_SOURCE_STAMP_6_1 /
#   LINUX_SOURCE_STAMP_6_12 / QEMU_BIN to depend on.

TOP   ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
BUILD ?= $(TOP)/build

EMU_SCRIPTS := $(TOP)/scripts

QEMU_BIN  := $(BUILD)/qemu/qemu-system-x86_64
SNODE_VM  := $(TOP)/tools/emu/vm/snode-vm

KDIR_6_1  := $(BUILD)/kernels/6.1/headers
KDIR_6_12 := $(BUILD)/kernels/6.12/headers
KDIR_debug := $(BUILD)/kernels/debug/headers
KERNEL_STAMP_6_1  := $(BUILD)/kernels/6.1/stamp
KERNEL_STAMP_6_12 := $(BUILD)/kernels/6.12/stamp
KERNEL_STAMP_debug := $(BUILD)/kernels/debug/stamp
KVER_6_1  = $(shell cat $(BUILD)/kernels/6.1/kver 2>/dev/null)
KVER_6_12 = $(shell cat $(BUILD)/kernels/6.12/kver 2>/dev/null)

LINUX_SOURCE_STAMP_6_1  := $(BUILD)/linux-source-6.1/stamp
LINUX_SOURCE_STAMP_6_12 := $(BUILD)/linux-source-6.12/stamp
CHECKPATCH    := $(BUILD)/linux-source-6.1/scripts/checkpatch.pl
KSELFTEST_DIR := $(BUILD)/linux-source-6.1/tools/testing/selftests
YNL_DIR       := $(BUILD)/linux-source-6.12/tools/net/ynl

.PHONY: deps kernels kernels-debug linux-source qemu vm-down

# STEP NAME COMMAND...: COMMAND, its seconds in build/check/build-steps
STEP = bash $(EMU_SCRIPTS)/timed-step.sh

deps:
	$(STEP) deps $(EMU_SCRIPTS)/install-deps.sh

# The scripts are idempotent and do no network work once their stamp exists,
# so the phony targets always call them; the stamp rules serve as
# prerequisites for other fragments.
kernels:
	$(EMU_SCRIPTS)/fetch-kernel.sh 6.1
	$(EMU_SCRIPTS)/fetch-kernel.sh 6.12

$(BUILD)/kernels/%/stamp:
	$(EMU_SCRIPTS)/fetch-kernel.sh $*

# A no-op in seconds when the source version, debug.config, the script and
# the compiler are unchanged (scripts/build-debug-kernel.sh). The explicit
# stamp rule wins over the pattern rule above.
kernels-debug:
	$(EMU_SCRIPTS)/build-debug-kernel.sh

$(KERNEL_STAMP_debug):
	$(EMU_SCRIPTS)/build-debug-kernel.sh

linux-source:
	$(EMU_SCRIPTS)/fetch-linux-source.sh 6.1
	$(EMU_SCRIPTS)/fetch-linux-source.sh 6.12

$(BUILD)/linux-source-%/stamp:
	$(EMU_SCRIPTS)/fetch-linux-source.sh $*

# ninja decides what to rebuild; the script re-copies the files of
# tools/emu/qemu/snode/ whose content changed and regenerates the device's
# meson file list, so a new or removed device file re-runs meson. make check
# runs this target every time, so a device change is always built.
qemu:
	$(TOP)/tools/emu/qemu/build-qemu.sh

$(QEMU_BIN):
	$(TOP)/tools/emu/qemu/build-qemu.sh

vm-down:
	$(SNODE_VM) down

# tsc-khz: the host's TSC rate, which snode-vm gives the guests as
# tsc_early_khz= (tools/emu/vm/tsc-khz.c says why)
TSC_KHZ := $(BUILD)/tools/tsc-khz
.PHONY: tsc-khz
all: tsc-khz
tsc-khz: $(TSC_KHZ)
$(TSC_KHZ): $(TOP)/tools/emu/vm/tsc-khz.c
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wstrict-prototypes \
		-Wmissing-prototypes -o $@ $<
