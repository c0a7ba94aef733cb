# SPDX-License-Identifier: GPL-2.0-or-later
#
# Installing snode (Documentation/install.rst):
#   install           the userspace, without a kernel tree: libsnode (shared
#                     and static), <libsnode.h> and <linux/snode.h> (+ snode_nl.h),
#                     libsnode.pc, snodectl, snode-perf, man pages, bash
#                     completion, the udev rule, the sysusers.d entry of
#                     group "snode" and the weekly link record's systemd
#                     units (not enabled); into DESTDIR, under PREFIX
#                     (/usr/local)
#   uninstall         removes exactly what install installed, and the
#                     provider, fi_snode(7) and fi_ext_snode.h of ofi-install
#   libsnode-install  the library, its headers, .pc file and man pages only
#   userspace         builds what install installs
#   dkms-source       the module's source with dkms.conf into
#                     $(DESTDIR)$(DKMS_SRCDIR) for "dkms install snode/VERSION"
#   deb               the Debian packages (debian/) into build/deb/
#   ofi-install       the libfabric provider libsnode-fi.so into OFIDIR
#                     (libfabric's provider directory: pkg-config's libdir
#                     of libfabric, /libfabric), fi_snode(7) and its
#                     extension header <rdma/fi_ext_snode.h> (beside
#                     libfabric's own fi_ext.h); ofi-uninstall removes the
#                     three
# The module itself: make modules_install (driver/driver.mk) or DKMS.
#
# The installed snodectl and snode-perf link the shared libsnode; the ones
# in build/tools/ (staged into the guests, which carry no install) link the
# static archive.

BINDIR      ?= $(PREFIX)/bin
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
# udev and systemd-sysusers read /usr/local/lib/... as well as /usr/lib/...
UDEVDIR     ?= $(PREFIX)/lib/udev
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
# as does systemd for units (/usr/local/lib/systemd/system)
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DKMS_SRCDIR ?= /usr/src/snode-$(SNODE_VERSION)

INSTALL_BIN := $(BUILD)/install/bin
# the service names snodectl by its installed path: made by each install,
# as BINDIR may differ from the last one's
INSTALL_UNITS := $(BUILD)/install/systemd

.PHONY: userspace install uninstall libsnode-install dkms-source deb
userspace: libsnode $(INSTALL_BIN)/snode-perf $(INSTALL_BIN)/snodectl

$(INSTALL_BIN)/snodectl: $(SNODECTL_SRCS) $(wildcard $(TOP)/tools/snodectl/*.h) \
			 $(TOOLS_LIB_HDRS) $(LIBSNODE_SO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(TOOLS_LIB_CFLAGS) \
		$(USER_LDFLAGS) -Wl,--as-needed -o $@ $(SNODECTL_SRCS) \
		-L$(LIBSNODE_DIR) -lsnode $(SNODECTL_LIBS)

$(INSTALL_BIN)/snode-perf: $(SNODE_PERF_SRCS) $(wildcard $(TOP)/tools/snode-perf/*.h) \
			   $(TOOLS_LIB_HDRS) $(LIBSNODE_SO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(TOOLS_LIB_CFLAGS) $(USER_LDFLAGS) -Wl,--as-needed \
		-o $@ $(SNODE_PERF_SRCS) -L$(LIBSNODE_DIR) -lsnode $(JSONC_LIBS) \
		$(LIBSNODE_LIBS)

# What install installs, as "SOURCE:DESTINATION:MODE" (DESTINATION relative
# to DESTDIR); uninstall removes the same list, so the two cannot drift.
LIB_MANS  := $(sort $(wildcard $(TOP)/libsnode/man/*.[37]))
TOOL_MANS := $(sort $(wildcard $(TOP)/tools/snodectl/*.8 $(TOP)/tools/snode-perf/*.1))
LIBSNODE_FILES := \
	$(LIBSNODE_A):$(LIBDIR)/libsnode.a:0644 \
	$(LIBSNODE_DIR)/libsnode.pc:$(LIBDIR)/pkgconfig/libsnode.pc:0644 \
	$(LIBSNODE_SO):$(LIBDIR)/$(LIBSNODE_SONAME):0755 \
	$(TOP)/libsnode/libsnode.h:$(INCDIR)/libsnode.h:0644 \
	$(TOP)/uapi/linux/snode.h:$(INCDIR)/linux/snode.h:0644 \
	$(TOP)/uapi/linux/snode_nl.h:$(INCDIR)/linux/snode_nl.h:0644 \
	$(foreach m,$(LIB_MANS),$(m):$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)):0644)
TOOLS_FILES := \
	$(INSTALL_BIN)/snode-perf:$(BINDIR)/snode-perf:0755 \
	$(INSTALL_BIN)/snodectl:$(BINDIR)/snodectl:0755 \
	$(TOP)/tools/snodectl/snodectl.bash-completion:$(BASHCOMPDIR)/snodectl:0644 \
	$(TOP)/udev/60-snode.rules:$(UDEVDIR)/rules.d/60-snode.rules:0644 \
	$(TOP)/udev/snode.sysusers:$(SYSUSERSDIR)/snode.conf:0644 \
	$(INSTALL_UNITS)/snode-link-record.service:$(SYSTEMDUNITDIR)/snode-link-record.service:0644 \
	$(TOP)/systemd/snode-link-record.timer:$(SYSTEMDUNITDIR)/snode-link-record.timer:0644 \
	$(foreach m,$(TOOL_MANS),$(m):$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)):0644)
# the development symlink, made by install, removed by uninstall
LIBSNODE_DEVLINK := $(LIBDIR)/libsnode.so

snode_install_files = $(foreach f,$(1),install -D -m $(word 3,$(subst :, ,$(f))) \
	$(word 1,$(subst :, ,$(f))) '$(DESTDIR)$(word 2,$(subst :, ,$(f)))' &&) true

libsnode-install: libsnode
	$(call snode_install_files,$(LIBSNODE_FILES))
	ln -sfn $(LIBSNODE_SONAME) '$(DESTDIR)$(LIBSNODE_DEVLINK)'

install: userspace libsnode-install
	@mkdir -p $(INSTALL_UNITS)
	sed 's|@BINDIR@|$(BINDIR)|g' $(TOP)/systemd/snode-link-record.service.in \
		>$(INSTALL_UNITS)/snode-link-record.service
	$(call snode_install_files,$(TOOLS_FILES))

# the provider too, wherever ofi-install put it (rm -f: if it did)
uninstall: ofi-uninstall
	rm -f '$(DESTDIR)$(LIBSNODE_DEVLINK)' $(foreach f,$(LIBSNODE_FILES) $(TOOLS_FILES),\
		'$(DESTDIR)$(word 2,$(subst :, ,$(f)))')

# What DKMS builds from: the kbuild files, the driver and the uapi header.
DKMS_FILES := $(TOP)/Kbuild $(TOP)/dkms.conf $(TOP)/driver/Kbuild $(DRIVER_SRCS) \
	$(UAPI_HDRS)

dkms-source:
	$(foreach f,$(DKMS_FILES),install -D -m 0644 $(f) \
		'$(DESTDIR)$(DKMS_SRCDIR)/$(patsubst $(TOP)/%,%,$(f))' &&) true
	sed -i 's/#MODULE_VERSION#/$(SNODE_VERSION)/' '$(DESTDIR)$(DKMS_SRCDIR)/dkms.conf'

deb:
	bash $(TOP)/scripts/build-deb.sh

# libfabric looks for lib<name>-fi.so in its provider directory, its own
# libdir's libfabric/ (Debian's: /usr/lib/x86_64-linux-gnu/libfabric),
# whatever PREFIX is, or in FI_PROVIDER_PATH: so the directory comes from
# libfabric's pkg-config file, and only without one from LIBDIR.
OFI_LIBFABRIC_LIBDIR := $(shell $(PKG_CONFIG) --variable=libdir libfabric 2>/dev/null)
OFIDIR ?= $(if $(OFI_LIBFABRIC_LIBDIR),$(OFI_LIBFABRIC_LIBDIR),$(LIBDIR))/libfabric
OFI_FILES := $(OFI_PROV):$(OFIDIR)/libsnode-fi.so:0755 \
	$(TOP)/ofi/fi_snode.7:$(MANDIR)/man7/fi_snode.7:0644 \
	$(TOP)/ofi/fi_ext_snode.h:$(INCDIR)/rdma/fi_ext_snode.h:0644
.PHONY: ofi-install ofi-uninstall
ofi-install: $(OFI_PROV)
	$(call snode_install_files,$(OFI_FILES))

ofi-uninstall:
	rm -f $(foreach f,$(OFI_FILES),'$(DESTDIR)$(word 2,$(subst :, ,$(f)))')
