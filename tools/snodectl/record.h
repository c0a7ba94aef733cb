/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.c: the link record file (snodectl link diag --record, link trend).
 */
#ifndef SNODECTL_RECORD_H
#define SNODECTL_RECORD_H

#include <stdint.h>

#include "libsnode.h"
#include "trend.h"

/* One link's samples, in the order of the file (rising time). */
struct record_link {
	char *host;
	char *dev;
	unsigned int port;
	struct trend_sample *s;
	unsigned int n, cap;
	unsigned int line;		/* of the latest sample */
	struct trend_result r;		/* for the caller */
};

struct record_file {
	const char *file;		/* the caller's, for messages */
	struct record_link *links;
	unsigned int n, cap;
	int64_t newest;			/* the latest record's time */
	unsigned int records;
};

/*
 * The record line of @n links at @now (unix seconds) on @host, newline
 * included, to be free()d; NULL if out of memory.
 */
char *record_line(const struct snode_link_info *li, unsigned int n,
		  int64_t now, const char *host);
/*
 * Read h->file ("-": standard input) into h->links. Returns 0; TOOL_EXIT_USAGE after a
 * "FILE:LINE: ..." message on a line that is not a record this snodectl
 * reads or a time that does not rise for a link; or
 * SNODECTL_HEALTH_UNKNOWN (3) after a message when the file cannot be
 * read. record_free() in every case.
 */
int record_read(struct record_file *h);
void record_free(struct record_file *h);
/* qsort() order of struct record_link: host, device, port */
int record_link_cmp(const void *a, const void *b);

#endif /* SNODECTL_RECORD_H */
