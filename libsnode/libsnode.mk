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
# Hardening by default; CFLAGS, CPPFLAGS and LDFLAGS given on the command
# line or in the environment (dpkg-buildflags) replace these, while the flags
# the code needs (warnings, -std, -fPIC, include paths) are always added.
PKG_CONFIG ?= pkg-config
CFLAGS     ?= -O2 -g -fstack-protector-strong -fstack-clash-protection \
	      -fcf-protection -Wformat -Werror=format-security
CPPFLAGS   ?= -D_FORTIFY_SOURCE=2
LDFLAGS    ?= -Wl,-z,relro -Wl,-z,now

# snode_stamp FILE, VARIABLES: FILE is rewritten whenever the values of
# VARIABLES differ from the last run, so rules depending on FILE rerun when
# a flag or an install directory changes (as kbuild's .cmd files do).
define snode_stamp
$(1)_TEXT := $$(foreach v,$(2),$$(v)=$$($$(v)))
ifneq ($$(file <$(1)),$$($(1)_TEXT))
$$(shell mkdir -p $(dir $(1)))
$$(file >$(1),$$($(1)_TEXT))
endif
endef

LIBSNODE_CFLAGS  := -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
		    -fPIC -fvisibility=hidden -I$(TOP)/uapi -I$(TOP)/libsnode \
		    $(shell $(PKG_CONFIG) --cflags libnl-genl-3.0 2>/dev/null) \
		    $(CPPFLAGS) $(CFLAGS)
LIBSNODE_LIBS    := $(shell $(PKG_CONFIG) --libs libnl-genl-3.0 2>/dev/null)
USER_CFLAGS      := -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
		    -I$(TOP)/uapi -I$(TOP)/libsnode -DSNODE_VERSION='"$(SNODE_VERSION)"' \
		    $(CPPFLAGS) $(CFLAGS)
USER_LDFLAGS     := $(CFLAGS) $(LDFLAGS)
$(eval $(call snode_stamp,$(LIBSNODE_DIR)/flags,CC CPPFLAGS CFLAGS LDFLAGS PKG_CONFIG))

# Install directories (install.mk); the .pc file records them.
PREFIX      ?= /usr/local
LIBDIR      ?= $(PREFIX)/lib
INCDIR      ?= $(PREFIX)/include
$(eval $(call snode_stamp,$(LIBSNODE_DIR)/dirs,PREFIX LIBDIR INCDIR SNODE_VERSION))

.PHONY: libsnode
all: libsnode
libsnode: $(LIBSNODE_SO) $(LIBSNODE_A) $(LIBSNODE_DIR)/libsnode.pc

$(LIBSNODE_DIR)/%.o: $(TOP)/libsnode/%.c $(wildcard $(TOP)/libsnode/*.h) \
		     $(UAPI_HDRS) $(LIBSNODE_DIR)/flags
	@mkdir -p $(dir $@)
	$(CC) $(LIBSNODE_CFLAGS) -c -o $@ $<

$(LIBSNODE_SO): $(LIBSNODE_OBJS) $(TOP)/libsnode/libsnode.sym
	$(CC) $(USER_LDFLAGS) -shared -Wl,-soname,$(LIBSNODE_SONAME) \
		-Wl,--version-script=$(TOP)/libsnode/libsnode.sym \
		-o $@ $(LIBSNODE_OBJS) $(LIBSNODE_LIBS)
	ln -sf $(LIBSNODE_SONAME) $(LIBSNODE_DIR)/libsnode.so

$(LIBSNODE_A): $(LIBSNODE_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(LIBSNODE_DIR)/libsnode.pc: $(TOP)/libsnode/libsnode.pc.in $(LIBSNODE_DIR)/dirs
	@mkdir -p $(dir $@)
	sed -e 's|@prefix@|$(PREFIX)|' \
	    -e 's|@libdir@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    -e 's|@includedir@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCDIR))|' \
	    -e 's|@version@|$(SNODE_VERSION)|' $< >$@

# Host tests (make check's "libsnode" suite): several threads on one
# context, against the shared library and again with every library source
# under ThreadSanitizer; the collectives' helpers (coll_unit, built with
# the library's sources for its internal functions); the ABI against the committed baseline
# (libsnode/libsnode.abi, abidiff); the Debian symbols file
# (debian/libsnode1.symbols) against the version script and the library;
# the version nodes as the symbols file's versions and the man pages give
# them (nodes-check.sh).
LIBSNODE_TEST_DIR := $(LIBSNODE_DIR)/test
LIBSNODE_THREAD_TEST := $(LIBSNODE_TEST_DIR)/thread_test
LIBSNODE_THREAD_TSAN := $(LIBSNODE_TEST_DIR)/thread_test-tsan
LIBSNODE_COLL_UNIT := $(LIBSNODE_TEST_DIR)/coll_unit
LIBSNODE_TEST_CFLAGS := -O1 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
			-pthread -I$(TOP)/uapi -I$(TOP)/libsnode

.PHONY: libsnode-test libsnode-abi-update
libsnode-test: $(LIBSNODE_THREAD_TEST) $(LIBSNODE_THREAD_TSAN) $(LIBSNODE_COLL_UNIT) \
	       $(LIBSNODE_SO)
	@rc=0; \
	$(LIBSNODE_THREAD_TEST) || rc=1; \
	echo "# the collectives' helpers and argument checks"; \
	$(LIBSNODE_COLL_UNIT) || rc=1; \
	echo "# the same under ThreadSanitizer"; \
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 setarch -R $(LIBSNODE_THREAD_TSAN) || rc=1; \
	bash $(TOP)/libsnode/test/abi-check.sh $(LIBSNODE_SO) 9 || rc=1; \
	bash $(TOP)/libsnode/test/symbols-check.sh $(LIBSNODE_SO) 10 || rc=1; \
	bash $(TOP)/libsnode/test/version-check.sh $(LIBSNODE_SO) 11 "$(CC)" || rc=1; \
	bash $(TOP)/libsnode/test/nodes-check.sh 12 || rc=1; \
	bash $(TOP)/libsnode/test/man-examples.sh $(LIBSNODE_SO) 14 "$(CC)" || rc=1; \
	exit $$rc

# The same test for an emulated node (thread_test --device there), staged
# into the guests with the other tools.
LIBSNODE_THREAD_GUEST := $(BUILD)/stage/common/usr/lib/snode/libsnode_thread_test
all: $(LIBSNODE_THREAD_GUEST)
$(LIBSNODE_THREAD_GUEST): $(TOP)/libsnode/test/thread_test.c $(LIBSNODE_A)
	@mkdir -p $(dir $@)
	$(CC) $(LIBSNODE_TEST_CFLAGS) -o $@ $< $(LIBSNODE_A) $(LIBSNODE_LIBS)

# The collectives' test for the emulated nodes (selftests/vm/msg.sh runs it
# on four), staged like the thread test.
LIBSNODE_COLL_GUEST := $(BUILD)/stage/common/usr/lib/snode/libsnode_coll_test
all: $(LIBSNODE_COLL_GUEST)
$(LIBSNODE_COLL_GUEST): $(TOP)/libsnode/test/coll_test.c $(LIBSNODE_A)
	@mkdir -p $(dir $@)
	$(CC) $(LIBSNODE_TEST_CFLAGS) -o $@ $< $(LIBSNODE_A) $(LIBSNODE_LIBS)

# Deliberately accept the ABI as it is now (commit the result).
libsnode-abi-update: $(LIBSNODE_SO)
	bash $(TOP)/libsnode/test/abi-check.sh --update $(LIBSNODE_SO)

$(LIBSNODE_THREAD_TEST): $(TOP)/libsnode/test/thread_test.c $(LIBSNODE_SO)
	@mkdir -p $(dir $@)
	$(CC) $(LIBSNODE_TEST_CFLAGS) -o $@ $< -L$(LIBSNODE_DIR) \
		-Wl,-rpath,$(LIBSNODE_DIR) -l:$(LIBSNODE_SONAME)

$(LIBSNODE_COLL_UNIT): $(TOP)/libsnode/test/coll_unit.c $(LIBSNODE_SRCS) \
		       $(wildcard $(TOP)/libsnode/*.h) $(UAPI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIBSNODE_TEST_CFLAGS) \
		$(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null) \
		-o $@ $< $(LIBSNODE_SRCS) $(LIBSNODE_LIBS)

$(LIBSNODE_THREAD_TSAN): $(TOP)/libsnode/test/thread_test.c $(LIBSNODE_SRCS) \
			 $(wildcard $(TOP)/libsnode/*.h) $(UAPI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIBSNODE_TEST_CFLAGS) -fsanitize=thread \
		$(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null) \
		-o $@ $< $(LIBSNODE_SRCS) $(LIBSNODE_LIBS)
