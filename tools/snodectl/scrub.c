// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scrub.c: the pure parts of snodectl diag - taking keys out of the text
 * of a diagnostic bundle, and reading a list of node ids.
 *
 * A bundle gathers what the driver shows root: the netlink dumps give the
 * keys of every export, import and endpoint to CAP_SYS_ADMIN, debugfs
 * prints them, a log line may carry a handle. Two passes take them out,
 * so that a bundle can be handed to a vendor: every key the dumps named
 * (in each form a tool prints it: 0x-hex, bare hex, zero-padded hex, upper
 * case, decimal) wherever it stands, and whatever value follows a word
 * "key", for keys no dump named any more (a window gone since a log line).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrub.h"

/* a key's printed form shorter than this is not looked for on its own */
#define SCRUB_MIN_FORM	4

static bool scrub_is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

struct scrub_buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void scrub_put(struct scrub_buf *b, const char *s, size_t n)
{
	char *p;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;

		p = realloc(b->s, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* the length of a form of @key at @p, standing alone as a word; 0 if none */
static size_t scrub_match_key(const char *p, const char *start, uint64_t key)
{
	char forms[6][24];
	size_t n, i;

	if (p > start && scrub_is_word(p[-1]))
		return 0;
	snprintf(forms[0], sizeof(forms[0]), "0x%016" PRIx64, key);
	snprintf(forms[1], sizeof(forms[1]), "0x%" PRIx64, key);
	snprintf(forms[2], sizeof(forms[2]), "%016" PRIx64, key);
	snprintf(forms[3], sizeof(forms[3]), "%016" PRIX64, key);
	snprintf(forms[4], sizeof(forms[4]), "%" PRIx64, key);
	snprintf(forms[5], sizeof(forms[5]), "%" PRIu64, key);
	for (i = 0; i < 6; i++) {
		n = strlen(forms[i]);
		if (n < SCRUB_MIN_FORM || strncasecmp(p, forms[i], n))
			continue;
		if (scrub_is_word(p[n]))
			continue;
		return n;
	}
	return 0;
}

/*
 * After a word "key" (any case, "key", "keys", "key_hex" do not count):
 * the separators and the value that follow it, the value's start in
 * *@val and its length returned; 0 if no value follows.
 */
static size_t scrub_match_label(const char *p, const char *start,
				size_t *val)
{
	size_t i = 3, v, h;

	if (strncasecmp(p, "key", 3) || (p > start && scrub_is_word(p[-1])) ||
	    scrub_is_word(p[3]))
		return 0;
	/* key 0x..., key=..., "key": "...", key: ... */
	while (p[i] == ' ' || p[i] == '=' || p[i] == ':' || p[i] == '"' ||
	       p[i] == '\t')
		i++;
	v = i;
	if (p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X'))
		i += 2;
	h = i;
	while (isxdigit((unsigned char)p[i]))
		i++;
	if (i == h)
		return 0;
	if (scrub_is_word(p[i]))
		return 0;
	*val = v;
	return i;
}

char *scrub_text(const char *text, const uint64_t *keys, unsigned int nkeys,
		 unsigned int *redacted)
{
	struct scrub_buf b = { 0 };
	const char *p = text, *lit = text;
	unsigned int i, count = 0;
	size_t n, v;

	scrub_put(&b, "", 0);
	while (*p) {
		n = 0;
		for (i = 0; i < nkeys && !n; i++)
			if (keys[i])
				n = scrub_match_key(p, text, keys[i]);
		if (n) {
			scrub_put(&b, lit, p - lit);
			scrub_put(&b, SCRUB_REDACTED, strlen(SCRUB_REDACTED));
			count++;
			p += n;
			lit = p;
			continue;
		}
		n = scrub_match_label(p, text, &v);
		if (n) {
			scrub_put(&b, lit, p - lit);
			scrub_put(&b, p, v);
			scrub_put(&b, SCRUB_REDACTED, strlen(SCRUB_REDACTED));
			count++;
			p += n;
			lit = p;
			continue;
		}
		p++;
	}
	scrub_put(&b, lit, p - lit);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	if (redacted)
		*redacted = count;
	return b.s;
}

int scrub_parse_nodes(const char *s, uint32_t *nodes, unsigned int max,
		      uint32_t limit)
{
	unsigned int n = 0, i;
	const char *p = s;
	char *end;

	if (!*s)
		return -EINVAL;
	while (*p) {
		unsigned long a, b;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		a = strtoul(p, &end, 10);
		if (errno || a >= limit)
			return -ERANGE;
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtoul(p, &end, 10);
			if (errno || b >= limit)
				return -ERANGE;
			if (b < a)
				return -EINVAL;
		}
		for (; a <= b; a++) {
			for (i = 0; i < n; i++)
				if (nodes[i] == a)
					return -EEXIST;
			if (n == max)
				return -E2BIG;
			nodes[n++] = a;
		}
		p = end;
		if (*p == ',') {
			p++;
			if (!*p)
				return -EINVAL;
		} else if (*p) {
			return -EINVAL;
		}
	}
	return n;
}
