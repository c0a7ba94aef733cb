# SPDX-License-Identifier: LGPL-2.1-or-later
# The libfabric provider "snode" (fi_snode(7)): libsnode-fi.so, built
# against Debian's libfabric-dev and linked with the static libsnode (its
# symbols stay hidden), so that libfabric's loader needs nothing else of
# ours. Staged for the guests at /usr/lib/snode/ofi (FI_PROVIDER_PATH),
# with the two-node test program ofi_test beside it.
#
#   make ofi        the provider and ofi_test
#   make ofi-check  host check: the provider loads through libfabric and,
#                   without an snode NIC, offers nothing (-FI_ENODATA)
#   make mpi        mpi_test, the MPI job of selftests/vm/mpi.sh and make
#                   bench, built against Debian's libopenmpi-dev (ompi-c);
#                   not staged: it needs OpenMPI's libraries, which only
#                   the MPI suite's guests get (snode-vm --package, --add)

OFI_DIR      := $(BUILD)/ofi
OFI_PROV     := $(OFI_DIR)/libsnode-fi.so
OFI_SRCS     := $(sort $(wildcard $(TOP)/ofi/*.c))
OFI_OBJS     := $(patsubst $(TOP)/ofi/%.c,$(OFI_DIR)/%.o,$(OFI_SRCS))
OFI_TEST     := $(OFI_DIR)/ofi_test
OFI_STAGE    := $(BUILD)/stage/common/usr/lib/snode/ofi
OFI_CFLAGS   := $(LIBSNODE_CFLAGS) $(shell $(PKG_CONFIG) --cflags libfabric 2>/dev/null)
OFI_LIBS     := $(shell $(PKG_CONFIG) --libs libfabric 2>/dev/null)

MPI_TEST     := $(BUILD)/mpi/mpi_test

.PHONY: ofi ofi-check mpi
all: ofi mpi
mpi: $(MPI_TEST)
ofi: $(OFI_PROV) $(OFI_TEST) $(OFI_STAGE)/libsnode-fi.so $(OFI_STAGE)/ofi_test

$(OFI_DIR)/%.o: $(TOP)/ofi/%.c $(TOP)/ofi/snode_fi.h $(TOP)/ofi/fi_ext_snode.h \
		$(TOP)/libsnode/libsnode.h \
		$(UAPI_HDRS) $(LIBSNODE_DIR)/flags
	@mkdir -p $(dir $@)
	$(CC) $(OFI_CFLAGS) -pthread -c -o $@ $<

$(OFI_PROV): $(OFI_OBJS) $(LIBSNODE_A)
	$(CC) $(USER_LDFLAGS) -shared -pthread -Wl,--exclude-libs,ALL \
		-Wl,--no-undefined -o $@ $(OFI_OBJS) $(LIBSNODE_A) \
		$(LIBSNODE_LIBS) $(OFI_LIBS)

# linked with the static libsnode too: its hostile peer crafts raw messages
$(OFI_TEST): $(TOP)/selftests/ofi_test.c $(LIBSNODE_A) $(TOP)/libsnode/libsnode.h \
		$(TOP)/ofi/fi_ext_snode.h
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(shell $(PKG_CONFIG) --cflags libfabric 2>/dev/null) \
		$(USER_LDFLAGS) -o $@ $< $(LIBSNODE_A) $(LIBSNODE_LIBS) $(OFI_LIBS)

$(OFI_STAGE)/%: $(OFI_DIR)/%
	install -D -m 0755 $< $@

ofi-check: $(OFI_PROV) $(OFI_TEST)
	bash $(TOP)/ofi/host-check.sh $(OFI_PROV) $(OFI_TEST)

$(MPI_TEST): $(TOP)/selftests/mpi_test.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $$($(PKG_CONFIG) --cflags ompi-c) $(USER_LDFLAGS) \
		-o $@ $< $$($(PKG_CONFIG) --libs ompi-c)
