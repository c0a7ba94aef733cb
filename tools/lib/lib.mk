# SPDX-License-Identifier: GPL-2.0-or-later
# tools/lib: the print path (json-c), argument parsing and error helpers
# shared by snodectl, snode-perf and snode-fm's ctl. Each tool compiles
# these sources into itself; there is no library to install.

TOOLS_LIB_DIR    := $(TOP)/tools/lib
TOOLS_LIB_SRCS   := $(TOOLS_LIB_DIR)/print.c $(TOOLS_LIB_DIR)/util.c
TOOLS_LIB_HDRS   := $(TOOLS_LIB_DIR)/print.h $(TOOLS_LIB_DIR)/util.h
PKG_CONFIG       ?= pkg-config
JSONC_CFLAGS     := $(shell $(PKG_CONFIG) --cflags json-c 2>/dev/null)
JSONC_LIBS       := $(shell $(PKG_CONFIG) --libs json-c 2>/dev/null || echo -ljson-c)
TOOLS_LIB_CFLAGS := -I$(TOOLS_LIB_DIR) $(JSONC_CFLAGS)
