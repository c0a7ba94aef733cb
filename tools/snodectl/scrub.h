/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scrub.c: the pure parts of snodectl diag, for its host unit tests.
 */
#ifndef SNODECTL_SCRUB_H
#define SNODECTL_SCRUB_H

#include <stdbool.h>
#include <stdint.h>

#define SCRUB_REDACTED	"REDACTED"

/*
 * A copy of @text without keys: each of @keys (0 skipped) in any of its
 * printed forms of four characters or more, standing as a word, and any
 * value after a word "key", become SCRUB_REDACTED. The number of values
 * taken out in *@redacted (if not NULL). NULL when out of memory; the
 * caller frees the copy.
 */
char *scrub_text(const char *text, const uint64_t *keys, unsigned int nkeys,
		 unsigned int *redacted);

/*
 * "1,3,5-7": node ids below @limit, each once, into @nodes (at most
 * @max). Returns the count, or -EINVAL (malformed), -ERANGE (an id past
 * @limit), -EEXIST (an id twice), -E2BIG (more than @max).
 */
int scrub_parse_nodes(const char *s, uint32_t *nodes, unsigned int max,
		      uint32_t limit);

#endif /* SNODECTL_SCRUB_H */
