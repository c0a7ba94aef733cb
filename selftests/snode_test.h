/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the snode kselftests: the harness extras every test
 * file needs (the ioctl wrappers are in snode_utils.h), and the table of every ioctl of every file descriptor type
 * with the ABI rules of <linux/snode.h> ("General ioctl format") checked
 * the same way for each.
 *
 * Include after kselftest_harness.h.
 */
#ifndef SNODE_TEST_H
#define SNODE_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <grp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/snode.h>

#include "snode_utils.h"

/*
 * What the harness recorded of the running test: 6.1's kselftest_harness.h
 * has passed and skip, the ones since 6.9 one exit_code (the same series
 * added XFAIL_ADD). The tree builds against 6.1's, the Debian package
 * against its release's linux-source (6.12 on trixie).
 */
#ifdef XFAIL_ADD
#define snode_test_skipped(m)	((m)->exit_code == KSFT_SKIP)
#define snode_test_passed(m)	__test_passed(m)
#else
#define snode_test_skipped(m)	((m)->skip)
#define snode_test_passed(m)	((m)->passed)
#endif

#define EXPECT_ERRNO(expected_errno, cmd)		\
	({						\
		int _ret = (cmd);			\
		EXPECT_EQ(-1, _ret);			\
		EXPECT_EQ(expected_errno, errno);	\
	})

/*
 * Without /dev/snode0 (snode.ko not loaded, or no NIC on this host) a test
 * program is one SKIP, exit status 4 (KSFT_SKIP), before any test runs:
 * not a FAIL of every case, and no test body either (6.1's harness runs
 * one even after its setup called SKIP()).
 */
static void __attribute__((constructor)) snode_require_device(void)
{
	if (access("/dev/snode0", F_OK)) {
		ksft_print_header();
		ksft_exit_skip("/dev/snode0 does not exist: snode.ko not loaded or no NIC\n");
	}
}

/* 6.1's harness runs a test's body even after its setup called SKIP() */
#define SKIP_IF_SKIPPED()						\
	do {								\
		if (snode_test_skipped(_metadata))			\
			return;						\
	} while (0)

/* Set snode's module parameter @name to @val; its old value, or -errno. */
static inline long set_param(const char *name, long val)
{
	char path[128], buf[32];
	ssize_t n;
	long old;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/snode/parameters/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	old = strtol(buf, NULL, 10);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%ld", val);
	if (write(fd, buf, n) != n)
		old = -errno;
	close(fd);
	return old;
}

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Write @val to the sysfs or debugfs file @path: 0 or -errno. */
static inline int write_file(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : n == (ssize_t)strlen(val) ? 0 : -EIO;
}

/*
 * Read the sysfs or debugfs file @path into @buf, NUL terminated: the bytes
 * read, or -errno.
 */
static inline int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/*
 * The caller's VmLck (mm->locked_vm) in KiB, where account_locked_vm()
 * charges pins; -1 if it cannot be read.
 */
static inline long vm_locked_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * Drop CAP_IPC_LOCK from the effective set, and with @permitted from the
 * permitted set too (nothing can raise it again): RLIMIT_MEMLOCK then
 * applies to the caller's pins. Return: 0, or -1 with errno.
 */
static inline int drop_ipc_lock(bool permitted)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	const uint32_t bit = 1u << (CAP_IPC_LOCK % 32);

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_IPC_LOCK / 32].effective &= ~bit;
	if (permitted)
		d[CAP_IPC_LOCK / 32].permitted &= ~bit;
	return syscall(SYS_capset, &h, d);
}

/* ---- another user ------------------------------------------------------ */

#define SNODE_GROUP_GID		900	/* group "snode" in the guests' /etc/group */
#define SNODE_MEMBER_UID	1000	/* a member of it, not root */

/*
 * Fork a child that becomes uid SNODE_MEMBER_UID in group snode (after
 * giving the device node @dev to that group, as the udev rule does) and
 * exits with @fn(@arg); 125 if it could not become that user. Returns the
 * child's pid, or -1.
 */
static inline pid_t sn_fork_member(const char *dev, int (*fn)(void *arg),
				   void *arg)
{
	gid_t gid = SNODE_GROUP_GID;
	pid_t pid;

	if (chown(dev, 0, SNODE_GROUP_GID) || chmod(dev, 0660))
		return -1;
	pid = fork();
	if (pid)
		return pid;
	if (setgroups(1, &gid) ||
	    setresgid(SNODE_MEMBER_UID, SNODE_MEMBER_UID, SNODE_MEMBER_UID) ||
	    setresuid(SNODE_MEMBER_UID, SNODE_MEMBER_UID, SNODE_MEMBER_UID))
		_exit(125);
	_exit(fn(arg));
}

/* The exit status of child @pid, or -1 if it did not exit. */
static inline int sn_wait_child(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* @fn(@arg) as the member user (sn_fork_member()): its result, or -1. */
static inline int sn_run_member(const char *dev, int (*fn)(void *arg),
				void *arg)
{
	return sn_wait_child(sn_fork_member(dev, fn, arg));
}

/* PCI address of snodeN, from its "device" link. */
static inline int snode_bdf(int index, char *bdf, size_t len)
{
	char path[64], target[256];
	ssize_t n;
	char *slash;

	snprintf(path, sizeof(path), "/sys/class/snode/snode%d/device", index);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(bdf, len, "%s", slash ? slash + 1 : target);
	return 0;
}

/*
 * Set the driver's delay at race point @name (driver/debugfs.c), in
 * microseconds: 0 or -errno.
 */
static inline int set_delay(const char *name, unsigned int us)
{
	char path[128], val[16];

	snprintf(path, sizeof(path), "/sys/kernel/debug/snode/delay/%s", name);
	snprintf(val, sizeof(val), "%u", us);
	return write_file(path, val);
}

/* ---- the driver's tracepoints (driver/trace.h) ------------------------------ */

#define SNODE_TRACEFS "/sys/kernel/tracing"

/*
 * Start recording every snode tracepoint into an empty buffer: 0, or
 * -ENOENT if the kernel has no event tracing (built without
 * CONFIG_EVENT_TRACING), or another -errno: -ESRCH if the kernel traces
 * but snode.ko declares no tracepoints.
 */
static inline int trace_start(void)
{
	int fd, ret;

	if (access(SNODE_TRACEFS "/events", F_OK))
		mount("nodev", SNODE_TRACEFS, "tracefs", 0, NULL);
	if (access(SNODE_TRACEFS "/events", F_OK))
		return -ENOENT;
	if (access(SNODE_TRACEFS "/events/snode", F_OK))
		return -ESRCH;
	ret = write_file(SNODE_TRACEFS "/tracing_on", "0");
	if (ret)
		return ret;
	/* opening "trace" for writing with O_TRUNC empties the buffer */
	fd = open(SNODE_TRACEFS "/trace", O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	close(fd);
	ret = write_file(SNODE_TRACEFS "/events/snode/enable", "1");
	return ret ?: write_file(SNODE_TRACEFS "/tracing_on", "1");
}

/* Stop recording; the trace so far (free() it), or NULL. */
static inline char *trace_stop(void)
{
	size_t len = 0, room = 1 << 16;
	char *buf = malloc(room);
	ssize_t n;
	int fd;

	write_file(SNODE_TRACEFS "/tracing_on", "0");
	write_file(SNODE_TRACEFS "/events/snode/enable", "0");
	fd = open(SNODE_TRACEFS "/trace", O_RDONLY);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, room - len - 1)) > 0) {
		len += n;
		if (room - len < 4096) {
			char *more = realloc(buf, room * 2);

			if (!more)
				break;
			buf = more;
			room *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* The first line of @trace that contains every one of @n strings, or NULL. */
static inline const char *trace_find(const char *trace, int n, ...)
{
	const char *line = trace;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		bool all = true;
		va_list ap;
		int i;

		va_start(ap, n);
		for (i = 0; i < n && all; i++) {
			const char *want = va_arg(ap, const char *);

			all = memmem(line, len, want, strlen(want)) != NULL;
		}
		va_end(ap);
		if (all)
			return line;
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

/*
 * Expect both lines in @trace (from trace_find()), @first before @second;
 * print the whole trace if either is missing.
 */
static inline void trace_expect_order(struct __test_metadata *_metadata,
				      const char *trace, const char *first,
				      const char *second)
{
	EXPECT_NE(NULL, first);
	EXPECT_NE(NULL, second);
	if (!first || !second)
		TH_LOG("trace:\n%s", trace);
	else
		EXPECT_LT(first, second);
}

/* ---- every ioctl, by the file descriptor type that takes it ---------------- */

enum snode_fd_type {
	SNODE_FD_DEV,		/* /dev/snodeN */
	SNODE_FD_IMPORT,	/* SNODE_IOCTL_MEM_IMPORT's out_fd */
	SNODE_FD_EP,		/* SNODE_IOCTL_EP_ALLOC's out_fd */
	SNODE_FD_DMA,		/* SNODE_IOCTL_DMA_OPEN's out_fd */
	SNODE_FD_TYPES,
};

static const char *const snode_fd_type_names[SNODE_FD_TYPES] = {
	[SNODE_FD_DEV] = "/dev/snodeN",
	[SNODE_FD_IMPORT] = "import",
	[SNODE_FD_EP] = "endpoint",
	[SNODE_FD_DMA] = "DMA queue",
};

struct snode_abi_op {
	const char *name;
	unsigned long cmd;
	enum snode_fd_type fd;
	size_t size;		/* the structure as this test knows it */
	size_t min_size;	/* offsetofend() of the first version's last member */
	size_t flags_off;
	long reserved_off;	/* -1: the structure has no __reserved */
};

#define SNODE_ABI_OP(_cmd, _fd, _struct, _last, _res)			\
	{ #_cmd, _cmd, _fd, sizeof(struct _struct),			\
	  offsetofend(struct _struct, _last),				\
	  offsetof(struct _struct, flags), _res }
#define SNODE_ABI_RES(_struct) offsetof(struct _struct, __reserved)
#define SNODE_ABI_NO_RES (-1L)

/*
 * Every ioctl of <linux/snode.h>. A new ioctl goes here, and every check
 * below then covers it: a table is easier to keep complete than tests.
 */
static const struct snode_abi_op snode_abi_ops[] = {
	SNODE_ABI_OP(SNODE_IOCTL_INFO, SNODE_FD_DEV, snode_info, out_fw_name,
		     SNODE_ABI_RES(snode_info)),
	SNODE_ABI_OP(SNODE_IOCTL_MEM_ALLOC, SNODE_FD_DEV, snode_mem_alloc,
		     out_offset, SNODE_ABI_NO_RES),
	SNODE_ABI_OP(SNODE_IOCTL_MEM_FREE, SNODE_FD_DEV, snode_mem_free,
		     offset, SNODE_ABI_NO_RES),
	SNODE_ABI_OP(SNODE_IOCTL_MEM_EXPORT, SNODE_FD_DEV, snode_mem_export,
		     out_key, SNODE_ABI_RES(snode_mem_export)),
	SNODE_ABI_OP(SNODE_IOCTL_MEM_UNEXPORT, SNODE_FD_DEV,
		     snode_mem_unexport, out_revoked, SNODE_ABI_NO_RES),
	SNODE_ABI_OP(SNODE_IOCTL_MEM_IMPORT, SNODE_FD_DEV, snode_mem_import,
		     out_epoch, SNODE_ABI_NO_RES),
	SNODE_ABI_OP(SNODE_IOCTL_IMPORT_STATUS, SNODE_FD_IMPORT,
		     snode_import_status, __reserved,
		     SNODE_ABI_RES(snode_import_status)),
	SNODE_ABI_OP(SNODE_IOCTL_EP_ALLOC, SNODE_FD_DEV, snode_ep_alloc,
		     out_key, SNODE_ABI_NO_RES),
	SNODE_ABI_OP(SNODE_IOCTL_MSG_SEND, SNODE_FD_DEV, snode_msg_send,
		     payload, SNODE_ABI_NO_RES),
	SNODE_ABI_OP(SNODE_IOCTL_MSG_SEND, SNODE_FD_EP, snode_msg_send,
		     payload, SNODE_ABI_NO_RES),
	SNODE_ABI_OP(SNODE_IOCTL_DMA_OPEN, SNODE_FD_DEV, snode_dma_open,
		     out_fd, SNODE_ABI_NO_RES),
	SNODE_ABI_OP(SNODE_IOCTL_DMA_SUBMIT, SNODE_FD_DMA, snode_dma_submit,
		     __reserved, SNODE_ABI_RES(snode_dma_submit)),
};

/* Room for any structure plus a tail of a whole page */
#define SNODE_ABI_BUF	8192

/* One call that must fail with @err; the log names the ioctl and the case. */
#define EXPECT_ABI_ERRNO(_err, _fd, _op, _arg, _what)			\
	do {								\
		int _r = ioctl(_fd, (_op)->cmd, _arg);			\
		int _e = errno;						\
									\
		EXPECT_EQ(-1, _r) {					\
			TH_LOG("%s on %s: %s succeeded",		\
			       (_op)->name,				\
			       snode_fd_type_names[(_op)->fd], _what);	\
		}							\
		if (_r == -1)						\
			EXPECT_EQ(_err, _e) {				\
				TH_LOG("%s on %s: %s: %s",		\
				       (_op)->name,			\
				       snode_fd_type_names[(_op)->fd],	\
				       _what, strerror(_e));		\
			}						\
	} while (0)

static inline void snode_abi_arg(uint8_t *buf, uint32_t size)
{
	memset(buf, 0, SNODE_ABI_BUF);
	memcpy(buf, &size, sizeof(size));
}

/*
 * The general rules, on descriptor @fd of @op's type. Every case fails
 * before the ioctl does anything, whatever the other members hold (all
 * zero here), so the checks have no side effects:
 * - size 0, 4 and the first version's size - 1: EINVAL
 * - a non-zero byte right past the structure, or at the end of a page:
 *   E2BIG
 * - the highest flag bit: EOPNOTSUPP; a non-zero __reserved: EOPNOTSUPP
 * - no argument, or one in the zero page: EFAULT
 */
static inline void snode_abi_check(struct __test_metadata *_metadata, int fd,
				   const struct snode_abi_op *op)
{
	static uint8_t buf[SNODE_ABI_BUF] __attribute__((aligned(8)));

	snode_abi_arg(buf, 0);
	EXPECT_ABI_ERRNO(EINVAL, fd, op, buf, "size 0");
	snode_abi_arg(buf, 4);
	EXPECT_ABI_ERRNO(EINVAL, fd, op, buf, "size 4");
	snode_abi_arg(buf, op->min_size - 1);
	EXPECT_ABI_ERRNO(EINVAL, fd, op, buf, "size - 1");

	snode_abi_arg(buf, op->size + 8);
	buf[op->size] = 1;
	EXPECT_ABI_ERRNO(E2BIG, fd, op, buf, "non-zero byte past the structure");
	snode_abi_arg(buf, 4096);
	buf[4095] = 0x80;
	EXPECT_ABI_ERRNO(E2BIG, fd, op, buf, "non-zero last byte of a page");

	snode_abi_arg(buf, op->size);
	buf[op->flags_off + 3] = 0x80;
	EXPECT_ABI_ERRNO(EOPNOTSUPP, fd, op, buf, "flag bit 31");
	if (op->reserved_off >= 0) {
		snode_abi_arg(buf, op->size);
		buf[op->reserved_off] = 1;
		EXPECT_ABI_ERRNO(EOPNOTSUPP, fd, op, buf, "__reserved 1");
	}

	EXPECT_ABI_ERRNO(EFAULT, fd, op, NULL, "NULL argument");
	EXPECT_ABI_ERRNO(EFAULT, fd, op, (void *)8, "argument at address 8");
}

/*
 * A descriptor of type @type takes its own ioctls only: every other one,
 * unknown numbers, and its own with a size encoded, fail with ENOTTY.
 */
static inline void snode_abi_check_others(struct __test_metadata *_metadata,
					  int fd, enum snode_fd_type type)
{
	static uint8_t buf[SNODE_ABI_BUF] __attribute__((aligned(8)));
	struct snode_abi_op bogus = { .name = "unknown", .fd = type };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(snode_abi_ops); i++) {
		const struct snode_abi_op *op = &snode_abi_ops[i];
		struct snode_abi_op other = *op;
		bool own = false;

		for (j = 0; j < ARRAY_SIZE(snode_abi_ops); j++)
			own |= snode_abi_ops[j].cmd == op->cmd &&
			       snode_abi_ops[j].fd == type;
		if (own)
			continue;
		other.fd = type;
		snode_abi_arg(buf, op->size);
		EXPECT_ABI_ERRNO(ENOTTY, fd, &other, buf, "not this type's ioctl");
	}
	snode_abi_arg(buf, sizeof(struct snode_info));
	bogus.cmd = _IO(SNODE_TYPE, __SNODE_CMD_REMOVED_STATS + 1);
	EXPECT_ABI_ERRNO(ENOTTY, fd, &bogus, buf, "number past the last");
	bogus.cmd = _IO(SNODE_TYPE, __SNODE_CMD_REMOVED_MEM_LIST);
	EXPECT_ABI_ERRNO(ENOTTY, fd, &bogus, buf, "removed MEM_LIST");
	bogus.cmd = _IO(SNODE_TYPE, __SNODE_CMD_REMOVED_MSG_LIST);
	EXPECT_ABI_ERRNO(ENOTTY, fd, &bogus, buf, "removed MSG_LIST");
	bogus.cmd = _IO(SNODE_TYPE, __SNODE_CMD_REMOVED_STATS);
	EXPECT_ABI_ERRNO(ENOTTY, fd, &bogus, buf, "removed STATS");
	bogus.cmd = _IO(SNODE_TYPE, SNODE_CMD_BASE - 1);
	EXPECT_ABI_ERRNO(ENOTTY, fd, &bogus, buf, "number below the first");
	bogus.cmd = _IO('x', SNODE_CMD_INFO);
	EXPECT_ABI_ERRNO(ENOTTY, fd, &bogus, buf, "another ioctl type");
	for (i = 0; i < ARRAY_SIZE(snode_abi_ops); i++) {
		const struct snode_abi_op *op = &snode_abi_ops[i];

		if (op->fd != type)
			continue;
		/* the size is never encoded in an snode ioctl number */
		bogus.cmd = _IOWR(SNODE_TYPE, _IOC_NR(op->cmd), struct snode_info);
		EXPECT_ABI_ERRNO(ENOTTY, fd, &bogus, buf, op->name);
	}
}

#endif /* SNODE_TEST_H */
