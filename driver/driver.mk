# SPDX-License-Identifier: GPL-2.0
#
# snode.ko, included by the top-level Makefile (TOP, BUILD defined; the
# emulator fragment provides KDIR_6_1, KDIR_6_12, CHECKPATCH).
#
# Targets:
#   module            driver/snode.ko against KDIR (default: the running
#                     kernel's build dir, else Debian's 6.1 headers)
#   modules-guest     snode.ko for the 6.1 and 6.12 guest kernels, built out
#                     of tree in build/mod/<ver>/ and staged for the VMs at
#                     build/stage/k<ver>/lib/snode/snode.ko
#   modules-debug     the same for the debug kernel (make kernels-debug):
#                     build/stage/kdebug/lib/snode/snode.ko
#   lint              W=1 and sparse on both kernels, checkpatch --strict,
#                     kernel-doc of the headers, the driver's layering
#                     (driver-layering.py on the 6.12 objects); any finding
#                     fails
#   modules_install   snode.ko into INSTALL_MOD_PATH (make install, in
#                     install.mk, installs the userspace and no module)
#   driver-clean      remove the module's build products
#
# Both Debian kernels were built with gcc-12 (CONFIG_CC_VERSION_TEXT of the
# 6.12 backport names x86_64-linux-gnu-gcc-12 12.2.0) and their headers pick
# gcc-12 themselves, so bookworm's compiler builds for both; the debug kernel
# is built here by the same compiler (scripts/build-debug-kernel.sh).

KDIR_6_1  ?= $(BUILD)/kernels/6.1/headers
KDIR_6_12 ?= $(BUILD)/kernels/6.12/headers
KDIR_debug ?= $(BUILD)/kernels/debug/headers
KERNEL_STAMP_debug ?= $(BUILD)/kernels/debug/stamp
CHECKPATCH ?= $(BUILD)/linux-source-6.1/scripts/checkpatch.pl

HOST_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(HOST_KDIR)/Makefile),$(HOST_KDIR),$(KDIR_6_1))

INSTALL_MOD_PATH ?=

DRIVER_SRCS := $(sort $(filter-out %.mod.c,$(wildcard $(TOP)/driver/*.c)) \
		      $(wildcard $(TOP)/driver/*.h))
DRIVER_LINT_FILES := $(DRIVER_SRCS) $(UAPI_HDRS)
DRIVER_INPUTS := $(TOP)/Kbuild $(TOP)/driver/Kbuild $(DRIVER_LINT_FILES)

GUEST_KVERS := 6.1 6.12
KDIR_FOR = $(KDIR_$(subst .,_,$(1)))

.PHONY: all module modules-guest modules-debug lint modules_install driver-clean \
	clean

all: module

module:
	$(MAKE) -C $(KDIR) M=$(TOP) modules

# Copy the sources (keeping their times, so kbuild rebuilds only what
# changed) and build outside the source tree. $(2): a prerequisite that
# changes when the kernel is rebuilt (the debug kernel's stamp).
define snode_guest_module
$(BUILD)/mod/$(1)/driver/snode.ko: $(DRIVER_INPUTS) $(2)
	@mkdir -p $(BUILD)/mod/$(1)/driver $(BUILD)/mod/$(1)/uapi/linux
	cp -p $(TOP)/Kbuild $(BUILD)/mod/$(1)/
	cp -p $(TOP)/driver/Kbuild $(DRIVER_SRCS) $(BUILD)/mod/$(1)/driver/
	cp -p $(UAPI_HDRS) $(BUILD)/mod/$(1)/uapi/linux/
	$(MAKE) $(SUBMAKE_JOBS) -C $(call KDIR_FOR,$(1)) M=$(BUILD)/mod/$(1) modules

$(BUILD)/stage/k$(1)/lib/snode/snode.ko: $(BUILD)/mod/$(1)/driver/snode.ko
	install -D -m 0644 $$< $$@
endef
$(foreach v,$(GUEST_KVERS),$(eval $(call snode_guest_module,$(v))))
$(eval $(call snode_guest_module,debug,$(KERNEL_STAMP_debug)))

modules-guest: $(foreach v,$(GUEST_KVERS),$(BUILD)/stage/k$(v)/lib/snode/snode.ko)

modules-debug: $(BUILD)/stage/kdebug/lib/snode/snode.ko

# W=1 and sparse (C=2: every file, whether rebuilt or not) in a scratch copy
# per kernel; a single "warning:" or "error:" fails, as does checkpatch.
define snode_lint_kernel
.PHONY: lint-$(1)
lint-$(1):
	@rm -rf $(BUILD)/lint/$(1) && mkdir -p $(BUILD)/lint/$(1)/driver \
		$(BUILD)/lint/$(1)/uapi/linux
	@cp $(TOP)/Kbuild $(BUILD)/lint/$(1)/
	@cp $(TOP)/driver/Kbuild $(DRIVER_SRCS) $(BUILD)/lint/$(1)/driver/
	@cp $(UAPI_HDRS) $(BUILD)/lint/$(1)/uapi/linux/
	@echo "lint: W=1 C=2 against $(1)"
	@$(MAKE) -s $(SUBMAKE_JOBS) -C $(call KDIR_FOR,$(1)) M=$(BUILD)/lint/$(1) W=1 C=2 \
		modules > $(BUILD)/lint/$(1).log 2>&1; rc=$$$$?; \
	cat $(BUILD)/lint/$(1).log; \
	if [ $$$$rc -ne 0 ] || grep -qE '(warning|error):' $(BUILD)/lint/$(1).log; \
	then echo "lint: $(1) FAILED"; exit 1; fi
endef
$(foreach v,$(GUEST_KVERS),$(eval $(call snode_lint_kernel,$(v))))

.PHONY: lint-checkpatch
# trace.h is written in the TRACE_EVENT() layout every kernel trace header
# uses, which the --strict style checks for open-ended lines and
# parenthesis alignment cannot parse; every other check still applies.
TRACE_HDR := $(TOP)/driver/trace.h
lint-checkpatch:
	@echo "lint: checkpatch --strict"
	@cd $(TOP) && perl $(CHECKPATCH) --strict --no-tree --quiet -f \
		$(patsubst $(TOP)/%,%,$(filter-out $(TRACE_HDR),$(DRIVER_LINT_FILES)))
	@cd $(TOP) && perl $(CHECKPATCH) --strict --no-tree --quiet -f \
		--ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		$(patsubst $(TOP)/%,%,$(TRACE_HDR))

# kernel-doc of what W=1 does not see: the driver's headers and the uapi
# header, whose documented members must match its structures. snode_nl.h is
# rendered from the netlink spec (make nl-check) and left out.
KERNEL_DOC ?= $(KDIR_6_12)/scripts/kernel-doc

.PHONY: lint-kernel-doc
lint-kernel-doc:
	@echo "lint: kernel-doc"
	@out=$$(cd $(TOP) && perl $(KERNEL_DOC) -none -Wall uapi/linux/snode.h \
		$(patsubst $(TOP)/%,%,$(filter %.h,$(DRIVER_SRCS))) 2>&1); \
	if [ -n "$$out" ]; then \
		printf '%s\n' "$$out"; \
		echo "lint: kernel-doc FAILED"; exit 1; fi

# The driver's layering (Documentation/driver/snode.rst, "Layers"): the call
# graph of the objects lint-6.12 just built has no cycle between features
# and no forbidden edge beyond tools/testing/driver-layering.allow.
.PHONY: lint-layering
lint-layering: $(if $(filter lint,$(MAKECMDGOALS)),lint-6.12)
	@echo "lint: driver layering"
	@python3 $(TOP)/tools/testing/driver-layering.py --check \
		$(BUILD)/lint/6.12/driver > $(BUILD)/lint/layering.log 2>&1; rc=$$?; \
	if [ $$rc -ne 0 ]; then cat $(BUILD)/lint/layering.log; \
		echo "lint: driver layering FAILED"; exit 1; fi

lint: $(foreach v,$(GUEST_KVERS),lint-$(v)) lint-layering lint-checkpatch \
	lint-kernel-doc
	@echo "lint: clean"

modules_install: module
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) \
		modules_install

driver-clean:
	@# M=$(TOP) would make kbuild clean every object below the tree, build/
	@# (QEMU, the fetched kernels) included: clean the module directory only.
	$(MAKE) -C $(KDIR) M=$(TOP)/driver clean
	rm -f $(TOP)/Module.symvers $(TOP)/modules.order $(TOP)/.modules.order.cmd \
		$(TOP)/.Module.symvers.cmd
	rm -rf $(BUILD)/mod $(BUILD)/lint $(BUILD)/stage/k*/lib/snode

clean: driver-clean
