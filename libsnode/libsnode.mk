# SPDX-License-Identifier: LGPL-2.1-or-later
# libsnode: shared library (with the LIBSNODE_1 version script) for users,
# static archive for our own tools and tests (the guests carry no install).

SNODE_VERSION    := 0.1.0
LIBSNODE_SONAME  := libsnode.so.1
LIBSNODE_DIR     := $(BUILD)/libsnode
LIBSNODE_SRCS    := $(sort $(wildcard $(TOP)/libsnode/*.c))
LIBSNODE_OBJS    := $(patsubst $(TOP)/libsnode/%.c,$(LIBSNODE_DIR)/%.o,$(LIBSNODE_SRCS))
LIBSNODE_SO      := $(LIBSNODE_DIR)/$(LIBSNODE_SONAME)
LIBSNODE_A       := $(LIBSNODE_DIR)/libsnode.a
LIBSNODE_CFLAGS  := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
		    -fPIC -fvisibility=hidden -I$(TOP)/uapi -I$(TOP)/libsnode \
		    $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
LIBSNODE_LIBS    := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null)
USER_CFLAGS      := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
		    -I$(TOP)/uapi -I$(TOP)/libsnode -DSNODE_VERSION='"$(SNODE_VERSION)"'

PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man

.PHONY: libsnode libsnode-install
all: libsnode
libsnode: $(LIBSNODE_SO) $(LIBSNODE_A) $(LIBSNODE_DIR)/libsnode.pc

$(LIBSNODE_DIR)/%.o: $(TOP)/libsnode/%.c $(wildcard $(TOP)/libsnode/*.h) $(TOP)/uapi/linux/snode.h
	@mkdir -p $(dir $@)
	$(CC) $(LIBSNODE_CFLAGS) -c -o $@ $<

$(LIBSNODE_SO): $(LIBSNODE_OBJS) $(TOP)/libsnode/libsnode.sym
	$(CC) -shared -Wl,-soname,$(LIBSNODE_SONAME) \
		-Wl,--version-script=$(TOP)/libsnode/libsnode.sym \
		-o $@ $(LIBSNODE_OBJS) $(LIBSNODE_LIBS)
	ln -sf $(LIBSNODE_SONAME) $(LIBSNODE_DIR)/libsnode.so

$(LIBSNODE_A): $(LIBSNODE_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(LIBSNODE_DIR)/libsnode.pc: $(TOP)/libsnode/libsnode.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@prefix@|$(PREFIX)|' -e 's|@libdir@|$(LIBDIR)|' \
	    -e 's|@includedir@|$(INCDIR)|' -e 's|@version@|$(SNODE_VERSION)|' $< >$@

libsnode-install: libsnode
	install -D -m 0755 $(LIBSNODE_SO) $(DESTDIR)$(LIBDIR)/$(LIBSNODE_SONAME)
	ln -sf $(LIBSNODE_SONAME) $(DESTDIR)$(LIBDIR)/libsnode.so
	install -D -m 0644 $(TOP)/libsnode/libsnode.h $(DESTDIR)$(INCDIR)/libsnode.h
	install -D -m 0644 $(LIBSNODE_DIR)/libsnode.pc $(DESTDIR)$(LIBDIR)/pkgconfig/libsnode.pc
	install -d $(DESTDIR)$(MANDIR)/man3
	install -m 0644 $(TOP)/libsnode/man/*.3 $(DESTDIR)$(MANDIR)/man3/
