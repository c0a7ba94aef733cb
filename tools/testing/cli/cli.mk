# SPDX-License-Identifier: GPL-2.0-or-later
# cli-test: host tests (TAP) of snodectl, snode-perf, snode-fm ctl's output
# and the pure parts of tools/lib, libsnode and snodectl; no VM, no device,
# no root. grammar.sh walks every command of both tools through the one
# grammar (--, -j, -p, -s, extra and bad arguments).
# run-all.sh runs it first as the cli-unit suite.

CLI_TEST_DIR  := $(TOP)/tools/testing/cli
CLI_UNIT      := $(BUILD)/tools/cli-unit
# snode-perf's trace-line parser and link baseline file; snodectl's pure
# parts: error texts, the link and health verdicts, the link record file,
# link trend's arithmetic, the sensor baseline file and its drift rule,
# diag's key scrub and node lists
CLI_UNIT_SRCS := $(CLI_TEST_DIR)/unit.c $(TOP)/tools/snode-perf/baseline.c \
		 $(TOP)/tools/snode-perf/trace.c \
		 $(TOP)/tools/snodectl/baseline.c \
		 $(TOP)/tools/snodectl/errmsg.c \
		 $(TOP)/tools/snodectl/record.c $(TOP)/tools/snodectl/scrub.c \
		 $(TOP)/tools/snodectl/trend.c $(TOP)/tools/snodectl/verdict.c

.PHONY: cli-test
cli-test: $(CLI_UNIT) $(SNODECTL) $(SNODE_PERF) $(FM_BIN)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  fail=0; \
	  $(CLI_UNIT) "$$tmp" || fail=1; \
	  BUILD=$(BUILD) bash $(CLI_TEST_DIR)/cli.sh || fail=1; \
	  BUILD=$(BUILD) bash $(CLI_TEST_DIR)/grammar.sh || fail=1; \
	  exit $$fail

$(CLI_UNIT): $(CLI_UNIT_SRCS) $(TOP)/tools/snode-perf/perf.h \
		$(TOP)/tools/snodectl/snodectl.h \
		$(TOP)/tools/snodectl/baseline.h \
		$(TOP)/tools/snodectl/record.h $(TOP)/tools/snodectl/scrub.h \
		$(TOP)/tools/snodectl/trend.h \
		$(TOOLS_LIB_SRCS) $(TOOLS_LIB_HDRS) $(LIBSNODE_A)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(TOOLS_LIB_CFLAGS) -I$(TOP)/tools/snode-perf \
		-I$(TOP)/tools/snodectl \
		-o $@ $(CLI_UNIT_SRCS) $(TOOLS_LIB_SRCS) $(LIBSNODE_A) \
		$(JSONC_LIBS) $(LIBSNODE_LIBS) -lm
