/* SPDX-License-Identifier: GPL-2.0-or-later */
/* BIT() and GENMASK() for driver/hw.h in a host program */
#ifndef HC_SHIM_LINUX_BITS_H
#define HC_SHIM_LINUX_BITS_H

#define BIT(n)		(1UL << (n))
#define GENMASK(h, l)	(((~0UL) >> (63 - (h))) & (~0UL << (l)))

#endif
