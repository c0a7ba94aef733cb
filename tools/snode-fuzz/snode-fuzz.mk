# SPDX-License-Identifier: GPL-2.0-or-later
# snode-fuzz, linked with the static libsnode so guests need no install.
# "make fuzz" runs it open-ended on a 2-node supernode (selftests/vm/fuzz.sh).

SNODE_FUZZ      := $(BUILD)/tools/snode-fuzz
SNODE_FUZZ_SRCS := $(sort $(wildcard $(TOP)/tools/snode-fuzz/*.c))

.PHONY: snode-fuzz fuzz
all: snode-fuzz
snode-fuzz: $(SNODE_FUZZ) $(BUILD)/stage/common/usr/bin/snode-fuzz

$(SNODE_FUZZ): $(SNODE_FUZZ_SRCS) $(wildcard $(TOP)/tools/snode-fuzz/*.h) $(LIBSNODE_A)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -D_GNU_SOURCE -pthread -o $@ $(SNODE_FUZZ_SRCS) $(LIBSNODE_A) $(LIBSNODE_LIBS)

$(BUILD)/stage/common/usr/bin/snode-fuzz: $(SNODE_FUZZ)
	install -D -m 0755 $< $@

# make fuzz [SEED=N] [DURATION=S|Nm|Nh] [KERNEL=6.1|6.12|debug] [THREADS=T]
SEED     ?=
DURATION ?= 10m
KERNEL   ?= 6.12
THREADS  ?= 4
fuzz: all modules-guest
	SNODE_FUZZ_SEED='$(SEED)' SNODE_FUZZ_THREADS='$(THREADS)' \
		bash $(TOP)/selftests/vm/fuzz.sh $(KERNEL) $(DURATION)
