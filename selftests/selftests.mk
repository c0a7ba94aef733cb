# SPDX-License-Identifier: GPL-2.0
#
# kselftest-harness tests of snode.ko, run inside the emulated nodes.
# Included by the top-level Makefile (TOP, BUILD defined).
#
# Targets:
#   selftests        build the tests into build/selftests/ and stage them for
#                    the VMs at build/stage/common/usr/lib/snode/selftests/
#   selftests-clean  remove them
#
# The harness header comes from Debian's linux-source-6.1, extracted into
# build/ by "make linux-source"; it is never committed. The binaries are
# static: the guests run busybox and would otherwise need the runner to
# copy the C library.

KSELFTEST_DIR ?= $(BUILD)/linux-source-6.1/tools/testing/selftests
LINUX_SOURCE_STAMP_6_1 ?= $(BUILD)/linux-source-6.1/stamp

SELFTESTS_OUT   := $(BUILD)/selftests
SELFTESTS_STAGE := $(BUILD)/stage/common/usr/lib/snode/selftests
SELFTESTS_PROGS := core_test dma_test link_stream mem_peer mem_test msg_test netlink_test

SELFTESTS_CFLAGS := -O2 -g -Wall -Werror -Wno-format-truncation -static -pthread \
	-D_GNU_SOURCE -I$(TOP)/uapi -I$(KSELFTEST_DIR)

.PHONY: selftests selftests-clean
.PRECIOUS: $(SELFTESTS_OUT)/%

selftests: $(addprefix $(SELFTESTS_STAGE)/,$(SELFTESTS_PROGS))

$(SELFTESTS_OUT)/%: $(TOP)/selftests/%.c $(TOP)/uapi/linux/snode.h \
		$(LINUX_SOURCE_STAMP_6_1)
	@mkdir -p $(dir $@)
	$(CC) $(SELFTESTS_CFLAGS) -o $@ $<

$(SELFTESTS_STAGE)/%: $(SELFTESTS_OUT)/%
	install -D -m 0755 $< $@

selftests-clean:
	rm -rf $(SELFTESTS_OUT) $(addprefix $(SELFTESTS_STAGE)/,$(SELFTESTS_PROGS))

clean: selftests-clean
