/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Just enough of the kernel's types for driver/hw.h in a host program:
 * the __le types are plain integers here, since the test only looks at
 * sizes, offsets and constants, never at values in memory.
 */
#ifndef HC_SHIM_LINUX_TYPES_H
#define HC_SHIM_LINUX_TYPES_H

#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;

#define SZ_4K		0x1000

#endif
