# SPDX-License-Identifier: GPL-2.0
#
# kselftest-harness tests of snode.ko: the kselftest collection "snode".
# Included by the top-level Makefile (TOP, BUILD defined).
#
# Targets:
#   selftests          build the tests into build/selftests/ and install the
#                      collection for the VMs (INSTALL_PATH
#                      build/stage/common/usr/lib/snode/selftests, which
#                      every guest has at /usr/lib/snode/selftests)
#   kselftest-install  install the collection in the kernel's layout, for a
#                      host with an snode NIC or a package:
#                        make kselftest-install INSTALL_PATH=DIR
#                      gives DIR/run_kselftest.sh, DIR/kselftest-list.txt
#                      and DIR/snode/ (the tests, their helper programs,
#                      config and settings); run DIR/run_kselftest.sh
#                      (Documentation/driver/testing.rst, "Real hardware").
#                      INSTALL_PATH defaults to build/kselftest_install.
#   selftests-clean    remove them
#
# The harness header comes from Debian's linux-source-6.1, extracted into
# build/ by "make linux-source"; it is never committed. A build that must
# not download (debian/rules) extracts kselftest_harness.h and kselftest.h
# itself and names them on the command line, which overrides emu.mk:
#   make kselftest-install KSELFTEST_DIR=DIR \
#        LINUX_SOURCE_STAMP_6_1=DIR/kselftest_harness.h
# The binaries are static: the guests run busybox and would otherwise need
# the runner to copy the C library.

KSELFTEST_DIR ?= $(BUILD)/linux-source-6.1/tools/testing/selftests
LINUX_SOURCE_STAMP_6_1 ?= $(BUILD)/linux-source-6.1/stamp

SELFTESTS_OUT   := $(BUILD)/selftests
SELFTESTS_STAGE := $(BUILD)/stage/common/usr/lib/snode/selftests
# TEST_GEN_PROGS: listed in kselftest-list.txt, run by run_kselftest.sh
KSFT_TESTS      := core_test dma_test fail_nth_test lifetime_test mem_test \
	msg_test netlink_test probe_nth_test
# TEST_GEN_PROGS_EXTENDED: helper programs the VM suites drive themselves
KSFT_HELPERS    := campaign_traffic link_stream mem_peer
SELFTESTS_PROGS := $(sort $(KSFT_TESTS) $(KSFT_HELPERS))
SELFTESTS_BINS  := $(addprefix $(SELFTESTS_OUT)/,$(SELFTESTS_PROGS))
KSFT_FILES      := $(TOP)/selftests/config $(TOP)/selftests/settings
INSTALL_PATH    ?= $(BUILD)/kselftest_install

SELFTESTS_CFLAGS := -O2 -g -Wall -Werror -Wno-format-truncation -static -pthread \
	-D_GNU_SOURCE -I$(TOP)/uapi -I$(KSELFTEST_DIR)

# ksft_install DIR: the collection in DIR. install -C leaves a file that
# did not change alone, so the guests' initramfs is not rebuilt for nothing.
define ksft_install
	install -d $(1)/snode
	install -C -m 0755 $(TOP)/selftests/run_kselftest.sh $(1)/run_kselftest.sh
	install -C -m 0755 $(SELFTESTS_BINS) $(1)/snode/
	install -C -m 0644 $(KSFT_FILES) $(1)/snode/
	install -C -m 0644 $(SELFTESTS_OUT)/kselftest-list.txt $(1)/kselftest-list.txt
endef

.PHONY: kselftest-install selftests selftests-clean
.PRECIOUS: $(SELFTESTS_OUT)/%

# The loose binaries of before the collection are removed from the stage,
# so that no suite can run one by mistake.
selftests: $(SELFTESTS_BINS) $(SELFTESTS_OUT)/kselftest-list.txt $(KSFT_FILES) \
		$(TOP)/selftests/run_kselftest.sh
	$(call ksft_install,$(SELFTESTS_STAGE))
	rm -f $(addprefix $(SELFTESTS_STAGE)/,$(SELFTESTS_PROGS))

kselftest-install: $(SELFTESTS_BINS) $(SELFTESTS_OUT)/kselftest-list.txt \
		$(KSFT_FILES) $(TOP)/selftests/run_kselftest.sh
	$(call ksft_install,$(INSTALL_PATH))

$(SELFTESTS_OUT)/kselftest-list.txt: $(TOP)/selftests/selftests.mk
	@mkdir -p $(dir $@)
	printf 'snode:%s\n' $(KSFT_TESTS) >$@

$(SELFTESTS_OUT)/%: $(TOP)/selftests/%.c $(TOP)/selftests/snode_test.h \
		$(TOP)/selftests/snode_utils.h $(TOP)/selftests/snode_nl.h \
		$(TOP)/selftests/fail_nth.h \
		$(UAPI_HDRS) $(LINUX_SOURCE_STAMP_6_1)
	@mkdir -p $(dir $@)
	$(CC) $(SELFTESTS_CFLAGS) -o $@ $<

selftests-clean:
	rm -rf $(SELFTESTS_OUT) $(BUILD)/kselftest_install $(SELFTESTS_STAGE)/snode \
		$(addprefix $(SELFTESTS_STAGE)/,$(SELFTESTS_PROGS)) \
		$(SELFTESTS_STAGE)/run_kselftest.sh $(SELFTESTS_STAGE)/kselftest-list.txt

clean: selftests-clean

# The fault campaign (selftests/vm/campaign.sh, Documentation/driver/
# testing.rst "Fault campaign"): make campaign KERNEL=6.1|6.12|debug
.PHONY: campaign
campaign: KERNEL ?= 6.12
campaign: all modules-guest selftests
	bash $(TOP)/selftests/vm/campaign.sh $(KERNEL)
