# SPDX-License-Identifier: GPL-2.0-or-later
#
# hw-contract: a host test (no VM) that driver/hw.h, the device model's
# tools/emu/qemu/snode/snode-nic.h and command table, and
# Documentation/hw/snode-nic.rst define the same registers, fields, status
# codes, opcodes, events and structures.
#   make hw-contract   builds the dump program and runs the check (TAP)

HC_DIR    := $(TOP)/tools/testing/hw-contract
HC_OBJDIR := $(BUILD)/tools/hw-contract
HC_BIN    := $(HC_OBJDIR)/hw-contract-dump
HC_DEV    := $(TOP)/tools/emu/qemu/snode
HC_DOC    := $(TOP)/Documentation/hw/snode-nic.rst

HC_CC     ?= gcc
HC_CFLAGS := -std=gnu11 -O0 -g -Wall -Wextra -Werror -I$(HC_DIR)
HC_HDRS   := $(HC_DIR)/hc.h $(HC_DIR)/rows.h $(wildcard $(HC_DIR)/shim/*/*.h)

.PHONY: hw-contract
hw-contract: $(HC_BIN)
	python3 $(HC_DIR)/hw-contract.py $(HC_BIN) $(HC_DOC) $(HC_DEV)/admin.c

# Two objects: the driver's and the device's headers share names
# (SNODE_OP_*, enum snode_status) and cannot meet in one translation unit.
$(HC_OBJDIR)/drv.o: $(HC_DIR)/drv.c $(HC_HDRS) $(TOP)/driver/hw.h
	@mkdir -p $(dir $@)
	$(HC_CC) $(HC_CFLAGS) -I$(HC_DIR)/shim -I$(TOP)/driver -c -o $@ $<

$(HC_OBJDIR)/dev.o: $(HC_DIR)/dev.c $(HC_HDRS) $(HC_DEV)/snode-nic.h
	@mkdir -p $(dir $@)
	$(HC_CC) $(HC_CFLAGS) -I$(HC_DIR)/shim -I$(HC_DEV) -c -o $@ $<

$(HC_BIN): $(HC_DIR)/main.c $(HC_OBJDIR)/drv.o $(HC_OBJDIR)/dev.o $(HC_DIR)/hc.h
	$(HC_CC) $(HC_CFLAGS) -o $@ $(HC_DIR)/main.c $(HC_OBJDIR)/drv.o \
		$(HC_OBJDIR)/dev.o
