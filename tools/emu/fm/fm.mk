# SPDX-License-Identifier: GPL-2.0
#
# snode-fm, the fabric manager of the emulated supernode, and its host
# unit tests. Included by the top-level Makefile (TOP and BUILD defined).
#   make fm        builds $(BUILD)/tools/snode-fm
#   make fm-test   builds and runs the unit tests (TAP), non-zero on failure

FM_DIR     := $(TOP)/tools/emu/fm
FM_OBJDIR  := $(BUILD)/tools/fm
FM_BIN     := $(BUILD)/tools/snode-fm
FM_TESTBIN := $(FM_OBJDIR)/snode-fm-test

FM_CC      ?= gcc
FM_CFLAGS  := -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wstrict-prototypes \
	      -Wmissing-prototypes -Wno-unused-parameter -I$(FM_DIR) \
	      $(TOOLS_LIB_CFLAGS)
# json-c: ctl's "show" prints through the tools' print path (tools/lib)
FM_LDLIBS  := $(JSONC_LIBS) -lm

# sorted; main.c is the program, the rest is shared with the tests
FM_LIB_SRCS := ctl.c fabric.c link.c mem.c plan.c proto.c sim.c topo.c util.c
FM_TEST_SRCS := main.c test-e2e.c test-grant.c test-link.c test-plan.c \
		test-proto.c test-route.c test-topo.c

FM_LIB_OBJS  := $(addprefix $(FM_OBJDIR)/,$(FM_LIB_SRCS:.c=.o)) \
		$(FM_OBJDIR)/tools-lib/print.o
FM_TEST_OBJS := $(addprefix $(FM_OBJDIR)/tests/,$(FM_TEST_SRCS:.c=.o))
FM_HDRS      := $(FM_DIR)/fm.h $(FM_DIR)/proto.h $(FM_DIR)/snode-fm-proto.h \
		$(TOOLS_LIB_HDRS)

.PHONY: fm fm-test fm-clean
all: fm

fm: $(FM_BIN)

$(FM_OBJDIR)/%.o: $(FM_DIR)/%.c $(FM_HDRS)
	@mkdir -p $(dir $@)
	$(FM_CC) $(FM_CFLAGS) -c -o $@ $<

$(FM_OBJDIR)/tools-lib/%.o: $(TOOLS_LIB_DIR)/%.c $(TOOLS_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(FM_CC) $(FM_CFLAGS) -c -o $@ $<

$(FM_OBJDIR)/tests/%.o: $(FM_DIR)/tests/%.c $(FM_HDRS) $(FM_DIR)/tests/tap.h
	@mkdir -p $(dir $@)
	$(FM_CC) $(FM_CFLAGS) -I$(FM_DIR)/tests -c -o $@ $<

$(FM_BIN): $(FM_OBJDIR)/main.o $(FM_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(FM_CC) $(FM_CFLAGS) -o $@ $^ $(FM_LDLIBS)

$(FM_TESTBIN): $(FM_TEST_OBJS) $(FM_LIB_OBJS)
	$(FM_CC) $(FM_CFLAGS) -o $@ $^ $(FM_LDLIBS)

fm-test: $(FM_BIN) $(FM_TESTBIN)
	$(FM_TESTBIN) --fm $(FM_BIN) --topologies $(TOP)/tools/emu/topologies

fm-clean:
	rm -rf $(FM_OBJDIR) $(FM_BIN)
