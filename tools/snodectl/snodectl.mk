# SPDX-License-Identifier: GPL-2.0-or-later
# snodectl, linked with the static libsnode so guests need no install step.

SNODECTL      := $(BUILD)/tools/snodectl
SNODECTL_SRCS := $(sort $(wildcard $(TOP)/tools/snodectl/*.c)) $(TOOLS_LIB_SRCS)
SNODECTL_LIBS := $(JSONC_LIBS) $(LIBSNODE_LIBS)

.PHONY: snodectl
all: snodectl
snodectl: $(SNODECTL) $(BUILD)/stage/common/usr/bin/snodectl

$(SNODECTL): $(SNODECTL_SRCS) $(wildcard $(TOP)/tools/snodectl/*.h) $(TOOLS_LIB_HDRS) $(LIBSNODE_A)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(TOOLS_LIB_CFLAGS) $(USER_LDFLAGS) \
		-o $@ $(SNODECTL_SRCS) $(LIBSNODE_A) $(SNODECTL_LIBS)

$(BUILD)/stage/common/usr/bin/snodectl: $(SNODECTL)
	install -D -m 0755 $< $@
