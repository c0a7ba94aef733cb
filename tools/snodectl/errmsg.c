// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What snodectl says when libsnode or the kernel refuses: a message that
 * says what to do, or the kernel's own extended ack. Only the text is
 * made here (snodectl.c prints it), so the host tests can check it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "snodectl.h"

struct errmsg {
	int err;
	const char *text;
};

#define LIB_NO_DEV	"no such snode device (is snode.ko loaded? see 'snodectl dev show')"
#define LIB_NO_PERM	"not permitted (needs root, or membership of group snode for /dev/snode*)"

static const struct errmsg lib_msgs[] = {
	{ EACCES, LIB_NO_PERM },
	{ ENODEV, LIB_NO_DEV },
	{ ENOENT, LIB_NO_DEV },
	{ EPERM, LIB_NO_PERM },
	{ 0, NULL }
};

/* the netlink family's own meanings; the rest as library errors */
static const struct errmsg nl_msgs[] = {
	{ ENODEV, "no such snode device (see 'snodectl dev show')" },
	{ ENOENT, "no such port or node on this device" },
	{ EPERM, "not permitted: needs CAP_NET_ADMIN (root)" },
	{ EPROTONOSUPPORT, "snode.ko not loaded (the snode netlink family is missing; modprobe snode)" },
	{ 0, NULL }
};

static bool errmsg_find(const struct errmsg *t, char *buf, size_t len,
			const char *what, int err)
{
	for (; t->text; t++) {
		if (t->err == -err) {
			snprintf(buf, len, "%s: %s", what, t->text);
			return true;
		}
	}
	return false;
}

void snodectl_lib_msg(char *buf, size_t len, const char *what, int err)
{
	if (!errmsg_find(lib_msgs, buf, len, what, err))
		snprintf(buf, len, "%s: %s", what, strerror(-err));
}

bool snodectl_nl_msg(char *buf, size_t len, const char *what, int err,
		     const char *extack)
{
	if (extack && extack[0]) {
		/* as iproute2: the kernel's own words say what was wrong */
		snprintf(buf, len, "Error: %s.\n", extack);
		return true;
	}
	if (!errmsg_find(nl_msgs, buf, len, what, err))
		snodectl_lib_msg(buf, len, what, err);
	return false;
}

bool snodectl_extack_from_log(const char *line, char *buf, size_t len)
{
	static const char kernel[] = "kernel: ";
	size_t n;

	if (strncmp(line, kernel, sizeof(kernel) - 1))
		return false;
	snprintf(buf, len, "%s", line + sizeof(kernel) - 1);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return true;
}
