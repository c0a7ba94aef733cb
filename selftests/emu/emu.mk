# SPDX-License-Identifier: GPL-2.0
# The emulator test's guest half: a static register reader, the
# cross-modifying code test, the map-change race test and the guest script,
# staged into every guest at /usr/lib/snode/selftests/emu/.

EMU_TEST_STAGE := $(BUILD)/stage/common/usr/lib/snode/selftests/emu

.PHONY: emu-test-stage
emu-test-stage: $(EMU_TEST_STAGE)/bar_peek $(EMU_TEST_STAGE)/smc \
	$(EMU_TEST_STAGE)/maprace \
	$(EMU_TEST_STAGE)/guest-emu.sh \
	$(BUILD)/stage/common/usr/bin/lspci

$(EMU_TEST_STAGE)/bar_peek: $(TOP)/selftests/emu/bar_peek.c
	@mkdir -p $(dir $@)
	$(CC) -static -O2 -Wall -Wextra -Werror -o $@ $<

$(EMU_TEST_STAGE)/smc: $(TOP)/selftests/emu/smc.c
	@mkdir -p $(dir $@)
	$(CC) -static -O2 -pthread -Wall -Wextra -Werror -o $@ $<

$(EMU_TEST_STAGE)/maprace: $(TOP)/selftests/emu/maprace.c
	@mkdir -p $(dir $@)
	$(CC) -static -O2 -pthread -Wall -Wextra -Werror -o $@ $<

$(EMU_TEST_STAGE)/guest-emu.sh: $(TOP)/selftests/emu/guest-emu.sh
	@mkdir -p $(dir $@)
	install -m 0755 $< $@

# busybox has no lspci; the guest gets pciutils' (the runner adds its libraries).
$(BUILD)/stage/common/usr/bin/lspci: /usr/bin/lspci
	@mkdir -p $(dir $@)
	install -m 0755 $< $@
