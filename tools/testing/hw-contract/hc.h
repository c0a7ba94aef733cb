/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hw-contract: what one side (driver or device model) defines, as rows the
 * checker compares with the other side and with Documentation/hw/snode-nic.rst.
 *
 *   reg     NAME          register offset
 *   field   REG.FIELD     bit mask of a register field (CAP bits too)
 *   status  NAME          status code
 *   op      NAME          admin opcode
 *   event   NAME          event type
 *   size    STRUCT        sizeof a structure
 *   member  STRUCT.NAME   offset of a member; extra = its size
 *   cmd     OP.NAME       offset of a command parameter in the 64-byte
 *                         command; extra = its size (words = size / 4)
 *   res     OP.NAME       offset of a command result in the 16-byte
 *                         completion; extra = its size
 */
#ifndef HC_H
#define HC_H

struct hc_def {
	const char *kind;
	const char *name;
	unsigned long long value;
	unsigned long long extra;
};

extern const struct hc_def hc_driver[];
extern const struct hc_def hc_device[];

#define HC_MSIZE(type, m)	sizeof(((type *)0)->m)
#define HC_MEMBER(tname, type, m) \
	{ "member", tname "." #m, offsetof(type, m), HC_MSIZE(type, m) }
#define HC_SIZE(tname, type)	{ "size", tname, sizeof(type), 0 }

#endif
