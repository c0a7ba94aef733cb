/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The REG32()/FIELD() register description macros the device model's
 * snode-nic.h uses, with the names QEMU's hw/registerfields.h gives them
 * (A_reg, R_reg, R_reg_field_SHIFT/_LENGTH/_MASK), so the host test reads
 * the device's register map without QEMU. Written for this test.
 */
#ifndef HC_SHIM_HW_REGISTERFIELDS_H
#define HC_SHIM_HW_REGISTERFIELDS_H

#include <stdint.h>

#define QEMU_PACKED	__attribute__((packed))

#define REG32(reg, addr) \
	enum { A_ ## reg = (addr) }; \
	enum { R_ ## reg = (addr) / 4 };

#define FIELD(reg, field, shift, length) \
	enum { R_ ## reg ## _ ## field ## _SHIFT = (shift) }; \
	enum { R_ ## reg ## _ ## field ## _LENGTH = (length) }; \
	enum { R_ ## reg ## _ ## field ## _MASK = \
		(((~0ULL) >> (64 - (length))) << (shift)) };

#endif
