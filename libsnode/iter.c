// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode snapshots: the one iterator behind every list of the API (all
 * netlink dumps). A snapshot is an array of entries at the size the caller
 * was compiled with; the caller owns it and frees it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

struct lsn_iter *lsn_iter_new(size_t entry_size)
{
	struct lsn_iter *it;

	if (!entry_size || entry_size > 65536)
		return NULL;
	it = calloc(1, sizeof(*it));
	if (it)
		it->entry_size = entry_size;
	return it;
}

/* Room for at least @n entries, all zero past the ones there. */
static int lsn_iter_reserve(struct lsn_iter *it, unsigned int n)
{
	unsigned int room = it->room ? it->room : 8;
	void *p;

	if (n <= it->room)
		return 0;
	while (room < n)
		room *= 2;
	p = realloc(it->entries, (size_t)room * it->entry_size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + (size_t)it->room * it->entry_size, 0,
	       (size_t)(room - it->room) * it->entry_size);
	it->entries = p;
	it->room = room;
	return 0;
}

int lsn_iter_append(struct lsn_iter *it, const void *src, size_t have)
{
	int ret = lsn_iter_reserve(it, it->count + 1);

	if (ret)
		return ret;
	lsn_copy_out((char *)it->entries + (size_t)it->count * it->entry_size,
		     it->entry_size, src, have);
	it->count++;
	return 0;
}

void lsn_iter_clear(struct lsn_iter *it)
{
	if (it->entries)
		memset(it->entries, 0, (size_t)it->room * it->entry_size);
	it->count = 0;
}

const void *lsn_iter_first(const struct lsn_iter *it)
{
	return it->count ? it->entries : NULL;
}

const void *lsn_iter_next(const struct lsn_iter *it, const void *entry)
{
	size_t i = (size_t)((const char *)entry - (const char *)it->entries) /
		   it->entry_size + 1;

	return i < it->count ? (const char *)it->entries + i * it->entry_size :
			       NULL;
}

void lsn_iter_free(struct lsn_iter *it)
{
	if (!it)
		return;
	free(it->entries);
	free(it);
}
