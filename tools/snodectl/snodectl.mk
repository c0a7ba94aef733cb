# SPDX-License-Identifier: GPL-2.0-or-later
# snodectl, linked with the static libsnode so guests need no install step.

SNODECTL      := $(BUILD)/tools/snodectl
SNODECTL_SRCS := $(sort $(wildcard $(TOP)/tools/snodectl/*.c))
SNODECTL_LIBS := $(shell pkg-config --libs json-c 2>/dev/null) $(LIBSNODE_LIBS)

.PHONY: snodectl snodectl-install
all: snodectl
snodectl: $(SNODECTL) $(BUILD)/stage/common/usr/bin/snodectl

$(SNODECTL): $(SNODECTL_SRCS) $(wildcard $(TOP)/tools/snodectl/*.h) $(LIBSNODE_A)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(shell pkg-config --cflags json-c 2>/dev/null) \
		-o $@ $(SNODECTL_SRCS) $(LIBSNODE_A) $(SNODECTL_LIBS)

$(BUILD)/stage/common/usr/bin/snodectl: $(SNODECTL)
	install -D -m 0755 $< $@

snodectl-install: snodectl
	install -D -m 0755 $(SNODECTL) $(DESTDIR)$(PREFIX)/sbin/snodectl
	install -D -m 0644 $(TOP)/tools/snodectl/snodectl.8 $(DESTDIR)$(MANDIR)/man8/snodectl.8
	install -D -m 0644 $(TOP)/tools/snodectl/snodectl.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/snodectl
