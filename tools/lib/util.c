// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Error messages, command-word matching and argument parsing shared by the
 * snode tools. See util.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *tool_name = "snode";
static const char *tool_where;

void tool_set_name(const char *prog)
{
	tool_name = prog;
}

void tool_set_where(const char *where)
{
	tool_where = where;
}

static void tool_verr(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", tool_name);
	if (tool_where)
		fprintf(stderr, "%s: ", tool_where);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int tool_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_verr(fmt, ap);
	va_end(ap);
	return 1;
}

int tool_usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_verr(fmt, ap);
	va_end(ap);
	return TOOL_EXIT_USAGE;
}

bool tool_matches(const char *word, const char *full)
{
	size_t n = strlen(word);

	return n > 0 && n <= strlen(full) && !strncmp(word, full, n);
}

static const char *tool_entry(const void *table, unsigned long stride,
			      unsigned long i)
{
	return *(const char *const *)((const char *)table + i * stride);
}

int tool_lookup(const char *word, const void *table, unsigned long stride,
		const int *ids, char *cands, unsigned long cands_len)
{
	int found = -1, found_id = -1;
	bool ambiguous = false;
	unsigned long i;
	const char *name;

	for (i = 0; (name = tool_entry(table, stride, i)); i++)
		if (!strcmp(word, name))
			return (int)i;
	for (i = 0; (name = tool_entry(table, stride, i)); i++) {
		int id = ids ? ids[i] : (int)i;

		if (!tool_matches(word, name))
			continue;
		if (found >= 0 && id != found_id)
			ambiguous = true;
		if (found < 0) {
			found = (int)i;
			found_id = id;
		}
	}
	if (!ambiguous)
		return found;
	if (cands && cands_len) {
		size_t len = 0;

		cands[0] = '\0';
		for (i = 0; (name = tool_entry(table, stride, i)); i++) {
			if (!tool_matches(word, name))
				continue;
			len += snprintf(cands + len, len < cands_len ?
					cands_len - len : 0, "%s%s",
					len ? ", " : "", name);
		}
	}
	return -2;
}

int tool_lookup_first(const char *word, const void *table,
		      unsigned long stride)
{
	const char *name;
	unsigned long i;

	for (i = 0; (name = tool_entry(table, stride, i)); i++)
		if (!strcmp(word, name))
			return (int)i;
	for (i = 0; (name = tool_entry(table, stride, i)); i++)
		if (tool_matches(word, name))
			return (int)i;
	return -1;
}

static const char *tool_last_opt = "";

const char *tool_opt_word(void)
{
	return tool_last_opt;
}

/* A keyword: an exact name, else the unique prefix of one (aliases: one). */
static int tool_lookup_kw(const char *word, const struct tool_opt *opts)
{
	int i, found = -1;

	for (i = 0; opts[i].name; i++)
		if (opts[i].keyword && !strcmp(word, opts[i].name + 1))
			return i;
	for (i = 0; opts[i].name; i++) {
		if (!opts[i].keyword || !tool_matches(word, opts[i].name + 1))
			continue;
		if (found >= 0 && opts[found].id != opts[i].id)
			return -2;
		if (found < 0)
			found = i;
	}
	return found;
}

int tool_next_opt(int *argc, char ***argv, const struct tool_opt *opts,
		  const char **val)
{
	char **av = *argv, cands[256];
	const char *opt;
	int ids[32], n, i;

	if (*argc <= 0 || !av[0][0])
		return -1;
	if (av[0][0] != '-') {
		i = tool_lookup_kw(av[0], opts);
		if (i == -2) {
			tool_usage_err("\"%s\" is ambiguous", av[0]);
			return -2;
		}
		if (i < 0)
			return -1;
	} else if (!av[0][1]) {
		return -1;	/* "-": a file name, standard input */
	} else if (!strcmp(av[0], "--")) {
		(*argc)--;
		(*argv)++;
		return -1;
	} else {
		for (n = 0; opts[n].name && n < 32; n++)
			ids[n] = opts[n].id;
		opt = av[0][1] == '-' ? av[0] + 1 : av[0];
		i = tool_lookup(opt, opts, sizeof(*opts), ids, cands,
				sizeof(cands));
		if (i == -2) {
			tool_usage_err("option \"%s\" is ambiguous (%s)", av[0],
				       cands);
			return -2;
		}
		if (i < 0) {
			tool_usage_err("option \"%s\" is unknown", av[0]);
			return -2;
		}
	}
	tool_last_opt = av[0];
	if (opts[i].has_arg) {
		if (*argc < 2) {
			if (av[0][0] == '-')
				tool_usage_err("option \"%s\" needs a value",
					       av[0]);
			else
				tool_usage_err("\"%s\" needs a value", av[0]);
			return -2;
		}
		*val = av[1];
		(*argc)--;
		(*argv)++;
	}
	(*argc)--;
	(*argv)++;
	return opts[i].id;
}

int tool_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int tool_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	unsigned int shift = 0;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	if (*end) {
		u = strchr(units, *end);
		if (!u)
			return -EINVAL;
		shift = 10 * (unsigned int)(u - units + 1);
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
		if (*end)
			return -EINVAL;
	}
	if (shift && v > (~0ULL >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

int tool_split_line(char *line, char **argv, int max)
{
	char *r = line, *w = line;
	int argc = 0;

	for (;;) {
		char quote = 0;

		while (isspace((unsigned char)*r))
			r++;
		if (!*r || *r == '#')
			break;
		if (argc == max)
			return -1;
		argv[argc++] = w;
		for (; *r; r++) {
			if (quote) {
				if (*r == quote)
					quote = 0;
				else
					*w++ = *r;
			} else if (*r == '"' || *r == '\'') {
				quote = *r;
			} else if (isspace((unsigned char)*r)) {
				break;
			} else {
				*w++ = *r;
			}
		}
		if (quote)
			return -1;
		if (*r)
			r++;
		*w++ = '\0';
	}
	return argc;
}
