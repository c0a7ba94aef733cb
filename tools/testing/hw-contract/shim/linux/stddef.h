/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offsetof() for driver/hw.h in a host program */
#include <stddef.h>
