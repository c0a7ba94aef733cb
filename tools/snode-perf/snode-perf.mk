# SPDX-License-Identifier: GPL-2.0-or-later
# snode-perf, linked with the static libsnode so guests need no install.

SNODE_PERF      := $(BUILD)/tools/snode-perf
SNODE_PERF_SRCS := $(sort $(wildcard $(TOP)/tools/snode-perf/*.c)) $(TOOLS_LIB_SRCS)

.PHONY: snode-perf
all: snode-perf
snode-perf: $(SNODE_PERF) $(BUILD)/stage/common/usr/bin/snode-perf

$(SNODE_PERF): $(SNODE_PERF_SRCS) $(wildcard $(TOP)/tools/snode-perf/*.h) $(TOOLS_LIB_HDRS) $(LIBSNODE_A)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(TOOLS_LIB_CFLAGS) $(USER_LDFLAGS) -o $@ \
		$(SNODE_PERF_SRCS) $(LIBSNODE_A) $(JSONC_LIBS) $(LIBSNODE_LIBS)

$(BUILD)/stage/common/usr/bin/snode-perf: $(SNODE_PERF)
	install -D -m 0755 $< $@
