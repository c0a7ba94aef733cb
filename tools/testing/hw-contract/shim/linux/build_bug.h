/* SPDX-License-Identifier: GPL-2.0-or-later */
/* static_assert() and BUILD_BUG_ON() for driver/hw.h in a host program */
#ifndef HC_SHIM_LINUX_BUILD_BUG_H
#define HC_SHIM_LINUX_BUILD_BUG_H

#include <assert.h>

#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))

#endif
