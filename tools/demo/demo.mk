# SPDX-License-Identifier: GPL-2.0-or-later
# snode-mem-demo, the global memory step of "make demo" (tools/demo/demo.sh).

MEM_DEMO := $(BUILD)/tools/snode-mem-demo

.PHONY: mem-demo
all: mem-demo
mem-demo: $(MEM_DEMO) $(BUILD)/stage/common/usr/bin/snode-mem-demo

$(MEM_DEMO): $(TOP)/tools/demo/mem-demo.c $(TOP)/libsnode/libsnode.h $(LIBSNODE_A)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< $(LIBSNODE_A) $(LIBSNODE_LIBS)

$(BUILD)/stage/common/usr/bin/snode-mem-demo: $(MEM_DEMO)
	install -D -m 0755 $< $@
