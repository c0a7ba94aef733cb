// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf trace: the driver's tracepoints (driver/trace.h), recorded in
 * a private tracefs instance.
 *
 * An instance (instances/snode-perf-PID) has its own ring buffer, clock,
 * event switches and filters, so a benchmark neither sees nor disturbs
 * whatever else traces on the node (the selftests use the top-level
 * buffer). Its clock is "mono": events of different CPUs (a send, and the
 * interrupt that saw its answer) are comparable. The text trace gives
 * microseconds; benchmarks read it once at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf.h"

struct perf_trace {
	char dir[256];		/* the instance */
};

static const char *const tracefs_roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static int trace_write(const struct perf_trace *t, const char *file,
		       const char *val)
{
	char path[512];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(val))
		err = -EIO;
	close(fd);
	return err;
}

/*
 * A new instance recording nothing yet, @buffer_kb per CPU. 0, -ENOENT
 * without tracefs or snode's events, or another negative errno (-EACCES:
 * not root).
 */
int perf_trace_open(struct perf_trace **tp, unsigned long buffer_kb)
{
	struct perf_trace *t;
	char path[512], val[32];
	unsigned int i;
	int err = -ENOENT;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < sizeof(tracefs_roots) / sizeof(tracefs_roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/snode",
			 tracefs_roots[i]);
		if (access(path, F_OK))
			continue;
		snprintf(t->dir, sizeof(t->dir), "%s/instances/snode-perf-%d",
			 tracefs_roots[i], (int)getpid());
		err = mkdir(t->dir, 0700) ? -errno : 0;
		break;
	}
	if (err) {
		free(t);
		return err;
	}
	snprintf(val, sizeof(val), "%lu", buffer_kb);
	err = trace_write(t, "tracing_on", "0");
	if (!err)
		err = trace_write(t, "trace_clock", "mono");
	if (!err)
		err = trace_write(t, "buffer_size_kb", val);
	if (err) {
		perf_trace_close(t);
		return err;
	}
	*tp = t;
	return 0;
}

/* Record snode event @event (snode_msg_send ...) where @filter holds. */
int perf_trace_event(struct perf_trace *t, const char *event,
		     const char *filter)
{
	char file[128];
	int err;

	snprintf(file, sizeof(file), "events/snode/%s/filter", event);
	err = trace_write(t, file, filter);
	if (err)
		return err;
	snprintf(file, sizeof(file), "events/snode/%s/enable", event);
	return trace_write(t, file, "1");
}

int perf_trace_on(struct perf_trace *t, bool on)
{
	return trace_write(t, "tracing_on", on ? "1" : "0");
}

/* The trace as text (free() it), or NULL with errno set. */
char *perf_trace_read(struct perf_trace *t)
{
	size_t len = 0, room = 1 << 20;
	char path[512], *buf, *more;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/trace", t->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(room);
	while (buf && (n = read(fd, buf + len, room - len - 1)) > 0) {
		len += n;
		if (room - len >= 65536)
			continue;
		room *= 2;
		more = realloc(buf, room);
		if (!more)
			free(buf);
		buf = more;
	}
	close(fd);
	if (!buf)
		errno = ENOMEM;
	else
		buf[len] = '\0';
	return buf;
}

/*
 * One line of the text trace: the time in ns (microsecond resolution) and
 * the event's name into @event. 0, or -EINVAL for a comment or a line
 * that is no event.
 */
int perf_trace_parse(const char *line, uint64_t *ns, char *event,
		     size_t size)
{
	unsigned long long sec, usec;
	int frac = 0, frac_end = 0, end = 0;
	const char *p, *name;
	size_t len;

	if (*line == '#')
		return -EINVAL;
	/* "  TASK-PID  [CPU] FLAGS  SEC.USEC: EVENT: fields" */
	p = strstr(line, "] ");
	for (; p && *p && *p != '\n'; p++) {
		end = 0;
		/* exactly six decimals: the trace clock counts in ns */
		if (*p == ' ' &&
		    sscanf(p, " %llu.%n%6llu%n:%n", &sec, &frac, &usec,
			   &frac_end, &end) == 2 && end &&
		    frac_end - frac == 6)
			break;
	}
	if (!p || !end)
		return -EINVAL;
	name = p + end + strspn(p + end, " ");
	len = strcspn(name, ":\n");
	if (!len || len >= size || name[len] != ':')
		return -EINVAL;
	memcpy(event, name, len);
	event[len] = '\0';
	*ns = (sec * 1000000ULL + usec) * 1000ULL;
	return 0;
}

/* Remove the instance, and whatever it recorded. */
void perf_trace_close(struct perf_trace *t)
{
	if (!t)
		return;
	trace_write(t, "tracing_on", "0");
	rmdir(t->dir);
	free(t);
}
