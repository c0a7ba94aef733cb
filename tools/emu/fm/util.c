// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: util.c - logging, the clock, text buffers, number parsing,
 * file:line errors and the listening sockets
 *
 * Shared by every other file; nothing here knows about the fabric.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fm.h"

static FILE *fm_log_file;
static bool fm_log_to_stderr = true;

int fm_log_open(const char *path)
{
	fm_log_file = fopen(path, "a");
	if (!fm_log_file)
		return -errno;
	setvbuf(fm_log_file, NULL, _IOLBF, 0);
	return 0;
}

void fm_log_close(void)
{
	if (fm_log_file)
		fclose(fm_log_file);
	fm_log_file = NULL;
}

void fm_log_stderr(bool on)
{
	fm_log_to_stderr = on;
}

void fm_log(const char *fmt, ...)
{
	char stamp[64], msg[1024];
	struct timeval tv;
	struct tm tm;
	va_list ap;

	if (!fm_log_file && !fm_log_to_stderr)
		return;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (fm_log_to_stderr)
		fprintf(stderr, "%s.%03ld snode-fm: %s\n", stamp,
			(long)tv.tv_usec / 1000, msg);
	if (fm_log_file)
		fprintf(fm_log_file, "%s.%03ld %s\n", stamp,
			(long)tv.tv_usec / 1000, msg);
}

uint64_t fm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fm_buf_printf(struct fm_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			b->len += n;
			return;
		}
		b->cap = b->cap ? b->cap * 2 : 4096;
		while (b->cap - b->len <= (size_t)n)
			b->cap *= 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
}

void fm_buf_free(struct fm_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* Decimal or 0x hex, the whole string, no sign. */
void fm_nodemask_set(uint8_t *mask, uint64_t lo, uint64_t hi)
{
	for (; lo <= hi; lo++)
		mask[lo / 8] |= 1 << (lo % 8);
}

int fm_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

/* A byte count with an optional K, M, G or T suffix (powers of 1024). */
int fm_parse_size(const char *s, uint64_t *out)
{
	static const char sfx[] = "KMGT";
	char num[32];
	size_t n = strlen(s);
	const char *p;
	uint64_t v;
	int shift = 0;

	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	p = strchr(sfx, num[n - 1] & ~0x20);
	if (n > 1 && num[n - 1] != 'x' && p && !(n > 2 && num[1] == 'x')) {
		shift = 10 * (int)(p - sfx + 1);
		num[n - 1] = 0;
	}
	if (fm_parse_u64(num, &v))
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

void fm_size_str(uint64_t v, char *s, size_t len)
{
	static const char sfx[] = "KMGT";
	int i = -1;

	while (v && !(v & 1023) && i < 3) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(s, len, "%llu", (unsigned long long)v);
	else
		snprintf(s, len, "%llu%c", (unsigned long long)v, sfx[i]);
}

/* "A.P": node A, port P. */
int fm_parse_nodeport(const char *s, uint32_t *node, uint32_t *port)
{
	char buf[32], *dot;
	uint64_t a, p;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	dot = strchr(buf, '.');
	if (!dot)
		return -EINVAL;
	*dot = 0;
	if (fm_parse_u64(buf, &a) || fm_parse_u64(dot + 1, &p) ||
	    a >= FM_MAX_NODES || p >= FM_MAX_PORTS)
		return -EINVAL;
	*node = a;
	*port = p;
	return 0;
}

/*
 * How long a silent node lives: --dead-ms, else $SNODE_FM_DEAD_MS, else the
 * protocol's SNODE_FM_DEAD_MS; 0 if the environment holds a bad value.
 */
unsigned int fm_dead_ms(unsigned int opt)
{
	const char *env = getenv("SNODE_FM_DEAD_MS");
	uint64_t v;

	if (opt)
		return opt;
	if (!env || !*env)
		return SNODE_FM_DEAD_MS;
	if (fm_parse_u64(env, &v) || v < FM_DEAD_MS_MIN || v > FM_DEAD_MS_MAX)
		return 0;
	return v;
}

/*
 * "NAME:LINE: message" into @err (@errlen bytes), for the parsers of
 * topology and workload files. Returns -EINVAL.
 */
int fm_line_err(char *err, size_t errlen, const char *name, int line,
		const char *fmt, va_list ap)
{
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(err, errlen, "%s:%d: %s", name, line, msg);
	return -EINVAL;
}

/*
 * A listening SOCK_SEQPACKET UNIX socket at @path (non-blocking, replacing
 * a stale one), for the device and the control sockets. The fd, or a
 * negative errno.
 */
int fm_listen_seqpacket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}
