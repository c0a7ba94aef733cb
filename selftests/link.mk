# SPDX-License-Identifier: GPL-2.0
#
# Link health (the snode netlink family): included by the top-level
# Makefile (TOP, BUILD, YNL_DIR, LINUX_SOURCE_STAMP_6_12 defined).
#
# Targets:
#   nl-check    uapi/linux/snode_nl.h is exactly what the kernel's ynl-gen-c.py
#               renders from Documentation/netlink/specs/snode.yaml
#   nl-gen      render uapi/linux/snode_nl.h from the spec (after changing it)
#   ynl-stage   a minimal python3 and YNL's cli.py with the spec, staged for
#               the guests at build/stage/common/usr/lib/snode/ynl/, so that
#               selftests/vm/link.sh can read the family from the spec alone
#   devlink-stage  the host's iproute2 devlink (Debian's, unmodified) for the
#               guests at build/stage/common/usr/sbin/devlink; the VM runner
#               adds its libraries (scripts/install-deps.sh installs
#               iproute2). Nothing without /usr/sbin/devlink, and
#               selftests/vm/devlink.sh then skips.
#   bench-link  event latency and dump time (selftests/vm/link-bench.sh)

NL_SPEC      := $(TOP)/Documentation/netlink/specs/snode.yaml
YNL_DIR      ?= $(BUILD)/linux-source-6.12/tools/net/ynl
YNL_STAGE    := $(BUILD)/stage/common/usr/lib/snode/ynl
NL_CHECK_DIR := $(BUILD)/nl-check

.PHONY: nl-check nl-gen ynl-stage devlink-stage bench-link

# ynl-gen-c.py looks for the schema next to specs/ and for MAINTAINERS above
# it, as in a kernel tree; a scratch tree gives it both, with the spec at the
# path the generated header names. The schema is not fetched, so the spec is
# checked by the generator's own parsing.
NL_UAPI := $(TOP)/uapi/linux/snode_nl.h

define nl_render
	@rm -rf $(NL_CHECK_DIR) && mkdir -p $(NL_CHECK_DIR)/Documentation/netlink/specs
	@cp $(NL_SPEC) $(NL_CHECK_DIR)/Documentation/netlink/specs/snode.yaml
	@echo '{}' > $(NL_CHECK_DIR)/Documentation/netlink/genetlink.yaml
	@touch $(NL_CHECK_DIR)/MAINTAINERS
	@python3 $(YNL_DIR)/ynl-gen-c.py --mode uapi --header \
		--spec $(NL_CHECK_DIR)/Documentation/netlink/specs/snode.yaml \
		-o $(NL_CHECK_DIR)/snode_nl.h
endef

nl-check: $(NL_SPEC) $(NL_UAPI) $(LINUX_SOURCE_STAMP_6_12)
	$(nl_render)
	@if diff -u $(NL_CHECK_DIR)/snode_nl.h $(NL_UAPI); then \
		echo "nl-check: uapi/linux/snode_nl.h is what snode.yaml renders"; \
	else \
		echo "nl-check: uapi/linux/snode_nl.h differs from what snode.yaml renders (make nl-gen)"; \
		exit 1; \
	fi

# After a change of the spec: render uapi/linux/snode_nl.h from it.
nl-gen: $(NL_SPEC) $(LINUX_SOURCE_STAMP_6_12)
	$(nl_render)
	@cp $(NL_CHECK_DIR)/snode_nl.h $(NL_UAPI)
	@echo "nl-gen: uapi/linux/snode_nl.h rendered from snode.yaml"

$(YNL_STAGE)/ynl-cli: $(NL_SPEC) $(TOP)/selftests/vm/ynl-stage.sh \
		$(LINUX_SOURCE_STAMP_6_12)
	$(TOP)/selftests/vm/ynl-stage.sh $(YNL_STAGE) $(NL_SPEC) $(YNL_DIR)

ynl-stage: $(YNL_STAGE)/ynl-cli

HOST_DEVLINK  ?= /usr/sbin/devlink
DEVLINK_STAGE := $(BUILD)/stage/common/usr/sbin/devlink

# install -C: an unchanged binary leaves the guests' initramfs alone
devlink-stage:
	@if [ -x $(HOST_DEVLINK) ]; then \
		install -C -D -m 0755 $(HOST_DEVLINK) $(DEVLINK_STAGE); \
	else \
		echo "devlink-stage: no $(HOST_DEVLINK) (iproute2), not staged"; \
	fi

bench-link:
	$(TOP)/selftests/vm/link-bench.sh
